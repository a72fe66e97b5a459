package crawler

import (
	"errors"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/crawler/extract"
)

func TestParseSeeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
		bad  []int // line numbers reported
	}{
		{"one seed", "https://example.com/\n", []string{"https://example.com/"}, nil},
		{"comments and blanks ignored", "# seeds\n\n  \nhttp://a.example/x\n# end\n", []string{"http://a.example/x"}, nil},
		{"canonicalised", "HTTP://A.Example:80/a/../b#frag\n", []string{"http://a.example/b"}, nil},
		{"empty path made slash", "https://a.example\n", []string{"https://a.example/"}, nil},
		{"CRLF lines", "http://a.example/\r\nhttp://b.example/\r\n", []string{"http://a.example/", "http://b.example/"}, nil},
		{"relative URL", "/just/a/path\n", nil, []int{1}},
		{"ftp scheme", "ftp://a.example/\n", nil, []int{1}},
		{"two URLs on a line", "http://a.example/ http://b.example/\n", nil, []int{1}},
		{"bad port", "http://a.example:99999/\n", nil, []int{1}},
		{"user information", "http://u:p@a.example/\n", nil, []int{1}},
		{"every bad line listed", "http://ok.example/\nnope\n# c\nmailto:x@y\nhttp://ok2.example/\n%zz\n", nil, []int{2, 4, 6}},
		{"nothing but comments", "# none\n", nil, nil},
		{"byte order mark", "\uFEFFhttp://a.example/\n", []string{"http://a.example/"}, nil},
		{"byte order mark before a comment", "\uFEFF# seeds\nhttp://a.example/\n", []string{"http://a.example/"}, nil},
		{"byte order mark past line 1", "http://a.example/\n\uFEFFhttp://b.example/\n", nil, []int{2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSeeds(strings.NewReader(tc.in))
			if len(tc.bad) > 0 {
				var se *SeedError
				if !errors.As(err, &se) {
					t.Fatalf("err = %v, want a *SeedError", err)
				}
				var lines []int
				for _, b := range se.Lines {
					lines = append(lines, b.Line)
				}
				if !equalInts(lines, tc.bad) {
					t.Fatalf("bad lines %v, want %v", lines, tc.bad)
				}
				for _, n := range tc.bad {
					if !strings.Contains(err.Error(), "line "+itoa(n)+":") {
						t.Errorf("error %q does not name line %d", err, n)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, u := range got {
				s = append(s, u.String())
			}
			if strings.Join(s, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("seeds %v, want %v", s, tc.want)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func FuzzParseSeeds(f *testing.F) {
	f.Add("https://example.com/\n# c\n\nhttp://a.example:8080/x?y#z\n")
	f.Add("nope\n\x00\xff\n")
	f.Fuzz(func(t *testing.T, in string) {
		seeds, err := ParseSeeds(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, u := range seeds {
			if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Fragment != "" {
				t.Fatalf("invalid seed accepted: %q", u)
			}
			again, ok := extract.Canonical(u)
			if !ok || again.String() != u.String() {
				t.Fatalf("canonical form not stable: %q then %q", u, again)
			}
		}
	})
}
