package aipref

import (
	"maps"
	"testing"
)

// FuzzParse checks that any statement yields known categories only, that a failure means
// all unknown, and that the rendered expressions parse back to the same preferences.
func FuzzParse(f *testing.F) {
	f.Add("train-ai=y, search=n")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if p == nil {
			t.Fatalf("Parse(%q) returned nil Prefs", s)
		}
		if err != nil && len(p) != 0 {
			t.Fatalf("Parse(%q) failed (%v) but returned %v", s, err, p)
		}
		for label, v := range p {
			if !known(label) || (v != Allow && v != Disallow) {
				t.Fatalf("Parse(%q) returned %q=%v", s, label, v)
			}
		}
		if h, herr := ParseHeader([]string{s}); (herr != nil) != (err != nil) || !maps.Equal(h, p) {
			t.Fatalf("ParseHeader([%q]) = %v, %v; Parse gave %v, %v", s, h, herr, p, err)
		}
		back, berr := Parse(p.String())
		if berr != nil || !maps.Equal(back, p) {
			t.Fatalf("Parse(%q) = %v, but its rendering %q parses to %v (%v)", s, p, p.String(), back, berr)
		}
	})
}
