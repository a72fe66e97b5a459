package aipref

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dunglas/httpsfv"
)

// errNonASCII reports a statement that is not ASCII, which RFC 9651 §4.2 rejects outright.
var errNonASCII = errors.New("non-ASCII byte")

// Parse reads one preference statement (vocab-08 §6.5): SP and HTAB around it are stripped
// first (docs/rules.md#d9), then it must be an RFC 9651 Dictionary. On failure every category is unknown:
// the result is empty and the error says why. Unknown labels and all parameters are ignored.
func Parse(statement string) (Prefs, error) {
	return parse(strings.Trim(statement, " \t"))
}

// ParseHeader reads the Content-Usage field lines of one response. As RFC 9651 §4.2 asks, the
// lines are joined with commas into one Dictionary, so a key repeated on a later line wins.
// Lines that are empty after trimming SP and HTAB add nothing.
func ParseHeader(lines []string) (Prefs, error) {
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		if l = strings.Trim(l, " \t"); l != "" {
			parts = append(parts, l)
		}
	}
	return parse(strings.Join(parts, ", "))
}

// parse maps the bytes handed to the structured-field parser onto the known categories.
func parse(b string) (Prefs, error) {
	for i := 0; i < len(b); i++ {
		if b[i] >= 0x80 {
			return Prefs{}, fmt.Errorf("content-usage statement is not a valid dictionary: %w at offset %d", errNonASCII, i)
		}
	}
	d, err := httpsfv.UnmarshalDictionary([]string{b})
	if err != nil {
		return Prefs{}, fmt.Errorf("content-usage statement is not a valid dictionary: %w", err)
	}
	p := Prefs{}
	for _, label := range d.Names() {
		if !known(label) {
			continue
		}
		m, _ := d.Get(label)
		item, ok := m.(httpsfv.Item)
		if !ok {
			continue // an Inner List is not a preference
		}
		switch item.Value {
		case httpsfv.Token("y"):
			p[label] = Allow
		case httpsfv.Token("n"):
			p[label] = Disallow
		}
	}
	return p, nil
}
