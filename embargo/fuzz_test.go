package embargo

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// FuzzParseHTTPDate checks that an accepted date is UTC, whole seconds, within 50 years after
// the reference when written with two digits, and survives a round trip through IMF-fixdate.
func FuzzParseHTTPDate(f *testing.F) {
	f.Add("Sun, 06 Nov 1994 08:49:37 GMT", int64(1772323200))
	f.Fuzz(func(t *testing.T, s string, refUnix int64) {
		r := time.Unix(refUnix%(1<<35), 0).UTC() // keep the reference within years 0..3058
		got, ok := ParseHTTPDate(s, r)
		if !ok {
			if !got.IsZero() {
				t.Fatalf("ParseHTTPDate(%q) failed but returned %v", s, got)
			}
			return
		}
		if got.Location() != time.UTC || got.Nanosecond() != 0 {
			t.Fatalf("ParseHTTPDate(%q) = %v, want whole seconds in UTC", s, got)
		}
		if strings.Contains(s, "-") && got.After(r.AddDate(50, 0, 0)) {
			t.Fatalf("ParseHTTPDate(%q, %v) = %v, more than 50 years after the reference", s, r, got)
		}
		if got.Year() < 0 || got.Year() > 9999 {
			return
		}
		back, ok := ParseHTTPDate(got.Format(http.TimeFormat), r)
		if !ok || !back.Equal(got) {
			t.Fatalf("round trip of %q: %v formats as %q, which parses to %v, %v", s, got, got.Format(http.TimeFormat), back, ok)
		}
	})
}

// FuzzParsePeriod checks that only w, m and q (any case) are accepted, and that an accepted
// period is valid and renders back to a value that parses to itself.
func FuzzParsePeriod(f *testing.F) {
	f.Add("q")
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := ParsePeriod(s)
		want := len(s) == 1 && strings.Contains("wmqWMQ", s)
		if ok != want {
			t.Fatalf("ParsePeriod(%q) ok = %v, want %v", s, ok, want)
		}
		if !ok {
			if p != None {
				t.Fatalf("ParsePeriod(%q) failed but returned %v", s, p)
			}
			return
		}
		if !p.Valid() || p == None || p.Duration() != time.Duration(p.Days())*24*time.Hour {
			t.Fatalf("ParsePeriod(%q) = %d, not a valid period", s, p)
		}
		if back, ok := ParsePeriod(p.String()); !ok || back != p {
			t.Fatalf("ParsePeriod(%q) = %v, whose String %q parses to %v, %v", s, p, p.String(), back, ok)
		}
	})
}
