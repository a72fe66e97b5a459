package extract

import (
	"net/url"
	"testing"
)

func TestCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"fragment dropped", "http://a.example/x#top", "http://a.example/x"},
		{"host and scheme lowered", "HTTPS://A.EXAMPLE/Path", "https://a.example/Path"},
		{"default http port dropped", "http://a.example:80/", "http://a.example/"},
		{"default https port dropped", "https://a.example:443/", "https://a.example/"},
		{"other port kept", "http://a.example:8080/", "http://a.example:8080/"},
		{"empty path", "http://a.example", "http://a.example/"},
		{"dot segments", "http://a.example/a/./b/../c", "http://a.example/a/c"},
		{"query kept as is", "http://a.example/?b=2&a=1", "http://a.example/?b=2&a=1"},
		{"trailing dot of host", "http://a.example./", "http://a.example/"},
		{"IPv6 host", "http://[::1]:8080/x", "http://[::1]:8080/x"},
		{"not http", "mailto:someone@a.example", ""},
		{"no host", "http:///x", ""},
		{"port zero", "http://a.example:0/", ""},
		{"host of dots", "https://../", ""},
		{"empty label", "http://a..example/", ""},
		{"IDN host in ASCII", "http://BÜCHER.example/p", "http://xn--bcher-kva.example/p"},
		{"IDN host percent-encoded", "http://b%C3%BCcher.example/", "http://xn--bcher-kva.example/"},
		{"punycode host lowered", "http://XN--BCHER-KVA.example:8080/", "http://xn--bcher-kva.example:8080/"},
		{"IDN host IDNA refuses", "http://a\u200d\u00fc.example/", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u, err := url.Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			c, ok := Canonical(u)
			got := ""
			if ok {
				got = c.String()
			}
			if got != tc.want {
				t.Fatalf("Canonical(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestCanonicalSkipsOnlyIdlePathResolution checks that a path Canonical does not resolve
// (dotSegmentFree, no escaped form of its own) is the one ResolveReference would give.
func TestCanonicalSkipsOnlyIdlePathResolution(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"/", "/a", "//a", "///a", "/a//b", "/a/", "/a//", "//", "/.a", "/a.", "/a/.b/c", "/a/..b",
		"/..a/", "/a/b..", "/a;b", "/a b", "/é", "/%41", "/a%2Fb", "/%2e/", "/%2E%2E/x", "/a/./b", "/a/../b", "/a/.", "/a/..", "/.."} {
		u, err := url.Parse("http://h.example" + p + "?q=1")
		if err != nil {
			t.Fatal(err)
		}
		c, ok := Canonical(u)
		if !ok {
			t.Fatalf("%q: not canonical", p)
		}
		in := &url.URL{Scheme: "http", Host: "h.example", Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
		want := in.ResolveReference(&url.URL{Path: in.Path, RawPath: in.RawPath, RawQuery: in.RawQuery})
		if c.String() != want.String() || c.Path != want.Path || c.RawPath != want.RawPath {
			t.Errorf("%q: %q (path %q, raw %q), want %q (path %q, raw %q)", p, c, c.Path, c.RawPath, want, want.Path, want.RawPath)
		}
	}
}
