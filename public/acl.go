package public

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// EmbargoRule is one line of a pywb .aclj file of public/access/ (embargo-DAY.aclj; embargo.aclj of
// earlier versions): pywb's access control for one URL key that has a capture under embargo (a
// published tombstone, not yet released).
type EmbargoRule struct {
	Key      string // the URL's SURT key
	URL      string // a URL with that key
	Captures int    // how many of its captures are under embargo
}

// ExactSuffix ends the key of an exact-match pywb access rule: "KEY###" matches the URL with that
// key alone, where "KEY" alone would match every key it is a prefix of.
const ExactSuffix = "###"

// aclBlock is the JSON of a rule: pywb reads access and url; captures is archivectl's.
type aclBlock struct {
	Access   string `json:"access"`
	URL      string `json:"url"`
	Captures int    `json:"captures"`
}

// FormatEmbargoACL renders the rules as a pywb .aclj file: one line per rule,
// `KEY### - {"access":"block","url":URL,"captures":N}`, sorted in descending byte order as pywb's
// binary search expects. Rules with no capture are left out.
func FormatEmbargoACL(rules []EmbargoRule) ([]byte, error) {
	lines := make([][]byte, 0, len(rules))
	for _, r := range rules {
		if r.Captures <= 0 {
			continue
		}
		if r.Key == "" || strings.ContainsAny(r.Key, " \n") {
			return nil, fmt.Errorf("access rule: bad SURT key %q", r.Key)
		}
		var b bytes.Buffer
		b.WriteString(r.Key + ExactSuffix + " - ")
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(aclBlock{Access: "block", URL: r.URL, Captures: r.Captures}); err != nil { // ends the line
			return nil, fmt.Errorf("access rule for %s: %w", r.Key, err)
		}
		lines = append(lines, b.Bytes())
	}
	slices.SortFunc(lines, func(a, b []byte) int { return bytes.Compare(b, a) })
	return bytes.Join(lines, nil), nil
}

// ParseEmbargoACL reads a file FormatEmbargoACL wrote: every line an exact-match block rule with
// a positive count, in descending order, each key once.
func ParseEmbargoACL(b []byte) ([]EmbargoRule, error) {
	var rules []EmbargoRule
	var prev []byte
	for n, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if line[len(line)-1] != '\n' {
			return nil, fmt.Errorf("aclj line %d: no final newline", n+1)
		}
		if prev != nil && bytes.Compare(prev, line) <= 0 {
			return nil, fmt.Errorf("aclj line %d: not in descending order, or repeated", n+1)
		}
		prev = line
		key, rest, ok := bytes.Cut(line, []byte(" - "))
		k, exact := bytes.CutSuffix(key, []byte(ExactSuffix))
		if !ok || !exact || len(k) == 0 || bytes.IndexByte(k, ' ') >= 0 {
			return nil, fmt.Errorf("aclj line %d: not \"KEY### - {json}\"", n+1)
		}
		var blk aclBlock
		dec := json.NewDecoder(bytes.NewReader(rest))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&blk); err != nil {
			return nil, fmt.Errorf("aclj line %d: %w", n+1, err)
		}
		if blk.Access != "block" || blk.Captures <= 0 || blk.URL == "" {
			return nil, fmt.Errorf("aclj line %d: %+v is not a block rule of a URL with captures", n+1, blk)
		}
		rules = append(rules, EmbargoRule{Key: string(k), URL: blk.URL, Captures: blk.Captures})
	}
	if len(rules) > 1 {
		for i := 1; i < len(rules); i++ {
			if rules[i].Key == rules[i-1].Key {
				return nil, errors.New("aclj: a key has two rules")
			}
		}
	}
	return rules, nil
}
