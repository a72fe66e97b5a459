package robots

import "testing"

func TestPatternMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, pattern, path string
		want                bool
	}{
		{"prefix", "/news/", "/news/a", true},
		{"prefix does not match a sibling", "/news/", "/newsletter", false},
		{"wildcard and anchor", "/*.pdf$", "/a/b.pdf", true},
		{"anchor refuses a query", "/*.pdf$", "/a/b.pdf?x=1", false},
		{"the path is normalised", "/caf%C3%A9", "/café", true},
		{"a literal star in the path is no wildcard", "/a%2Ab", "/a*b", true},
		{"empty path is the root", "/$", "", true},
		{"case matters", "/News", "/news", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := CompilePattern(tc.pattern).Match(tc.path); got != tc.want {
				t.Errorf("CompilePattern(%q).Match(%q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
			}
		})
	}
}
