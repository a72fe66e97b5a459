package robots

import (
	"net/url"
	"testing"
)

func TestOriginAndPathQuery(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, origin, pq string }{
		{"HTTPS://Example.COM:443/a/b?c=d#frag", "https://example.com", "/a/b?c=d"},
		{"http://example.com:80", "http://example.com", "/"},
		{"http://example.com:8080/x?", "http://example.com:8080", "/x?"},
		{"https://[::1]:8443/caf%c3%a9", "https://[::1]:8443", "/caf%c3%a9"},
		{"https://a.example/ツ", "https://a.example", "/ツ"},
		{"https://a.example/a|b(c)", "https://a.example", "/a|b(c)"},
		{"https://a.example/a%2Fb", "https://a.example", "/a%2Fb"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			u, err := url.Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := Origin(u); got != tc.origin {
				t.Errorf("Origin = %q, want %q", got, tc.origin)
			}
			if got := PathQuery(u); got != tc.pq {
				t.Errorf("PathQuery = %q, want %q", got, tc.pq)
			}
		})
	}
}

func TestRobotsEvaluateURL(t *testing.T) {
	t.Parallel()
	r := &File{Availability: Available, Policy: NewPolicy([]byte("User-agent: *\nDisallow: /a|b\nDisallow: /ツ\nDisallow: /q?x=%e2\n"))}
	for _, raw := range []string{"https://a.example/a|b", "https://a.example/a%7cb", "https://a.example/%E3%83%84", "https://a.example/ツ/x", "https://a.example/q?x=%E2"} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if d := r.Evaluate("archivectl", u); d.Allowed {
			t.Errorf("%s allowed, want disallowed", raw)
		}
	}
	for a, want := range map[Availability]bool{Unavailable: true, Unreachable: false} {
		u, _ := url.Parse("https://a.example/x")
		if got := (&File{Availability: a}).Evaluate("archivectl", u).Allowed; got != want {
			t.Errorf("%v: allowed = %v, want %v", a, got, want)
		}
	}
}
