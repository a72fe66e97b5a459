package robots

import "testing"

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		isPattern bool
		want      string
	}{
		{"/plain/path?q=1&b=2", false, "/plain/path?q=1&b=2"},
		{"/ツ", false, "/%E3%83%84"},
		{"/%e3%83%84", false, "/%E3%83%84"},
		{"/foo/bar/%62%61%7A", true, "/foo/bar/baz"},
		{"/%7e%2D%2e%5F", false, "/~-._"},
		{"/a b\t\x7f", false, "/a%20b%09%7F"},
		{"/a*b$", false, "/a%2Ab%24"},
		{"/a*b$", true, "/a*b$"},
		{"/a$b$", true, "/a%24b$"},
		{"/%2A%24", true, "/%2A%24"},
		{"/%2a", true, "/%2A"},
		{"/100%", false, "/100%"},
		{"/%zz%4", false, "/%zz%4"},
		{"/q?u=https%3A%2F%2Ffoo.bar", false, "/q?u=https%3A%2F%2Ffoo.bar"},
		{"/a|b{c}\"<>\\^`", false, "/a%7Cb%7Bc%7D%22%3C%3E%5C%5E%60"},
		{"/a%7cb", true, "/a%7Cb"},
		{"/(x)!;,'", false, "/(x)!;,'"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			if got := normalize(tc.in, tc.isPattern); got != tc.want {
				t.Errorf("normalize(%q, %v) = %q, want %q", tc.in, tc.isPattern, got, tc.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
		length        int
	}{
		{"/", "/", true, 1},
		{"/fish", "/fish.html", true, 5},
		{"/fish", "/Fish", false, 5},
		{"/fish*", "/fish", true, 6},
		{"/*.php$", "/a.php", true, 7},
		{"/*.php$", "/a.php?x", false, 7},
		{"/*.php$", "/a.php.php", true, 7},
		{"/*.php", "/x.php5", true, 6},
		{"*.gif$", "/a/b.gif", true, 6},
		{"*$", "/anything", true, 2},
		{"$", "/", false, 1},
		{"/a*b*c", "/a1b2c3", true, 6},
		{"/a*b*c", "/acb", false, 6},
		{"/a*a*a$", "/aaa", true, 7},
		{"/a*a*a$", "/aa", false, 7},
		{"/a*a$", "/aa", true, 5},
		{"/a*a$", "/a", false, 5},
		{"/a*a$", "/a/a", true, 5},
		{"/a**a", "/aa", true, 5},
		{"/a*ab$", "/aab", true, 6},
		{"/a*ab$", "/abab", true, 6},
		{"/a*ab$", "/abac", false, 6},
		{"/x$", "/x", true, 3},
		{"/x$", "/xy", false, 3},
		{"fish", "/fish", false, 4},
		{"/a$b", "/a$b", true, 6},
		{"/%2A", "/*", true, 4},
		{"/%2A", "/x", false, 4},
	}
	for _, tc := range tests {
		t.Run(tc.pattern+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			p := compilePattern(tc.pattern)
			if got := p.match(normalize(tc.path, false)); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
			if int(p.length) != tc.length {
				t.Errorf("length = %d, want %d", p.length, tc.length)
			}
			if got := matchPositionSet(normalize(tc.pattern, true), normalize(tc.path, false)); got != tc.want {
				t.Errorf("reference matcher = %v, want %v", got, tc.want)
			}
		})
	}
}

// matchPositionSet is google/robotstxt's position-set matcher, written out as the reference
// the compiled matcher must agree with.
func matchPositionSet(pattern, path string) bool {
	pos := []int{0}
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '$' && i == len(pattern)-1 {
			return pos[len(pos)-1] == len(path)
		}
		if c == '*' {
			start := pos[0]
			pos = pos[:0]
			for p := start; p <= len(path); p++ {
				pos = append(pos, p)
			}
			continue
		}
		next := pos[:0]
		for _, p := range pos {
			if p < len(path) && path[p] == c {
				next = append(next, p+1)
			}
		}
		pos = next
		if len(pos) == 0 {
			return false
		}
	}
	return true
}
