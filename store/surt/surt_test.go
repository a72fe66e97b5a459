package surt

import (
	"strings"
	"testing"
)

func TestKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"host reversed", "https://example.com/a/b", "com,example)/a/b"},
		{"scheme does not count", "http://example.com/a/b", "com,example)/a/b"},
		{"www dropped", "https://www.example.com/", "com,example)/"},
		{"www2 dropped", "https://www2.example.com/x", "com,example)/x"},
		{"www as registrable label kept", "https://www.com/", "com,www)/"},
		{"wwwx is not a www prefix", "https://wwwx.example.com/", "com,example,wwwx)/"},
		{"empty path is /", "https://example.com", "com,example)/"},
		{"case folded", "HTTPS://Example.COM/A/B", "com,example)/a/b"},
		{"trailing slash dropped", "https://example.com/a/", "com,example)/a"},
		{"fragment dropped", "https://example.com/a#frag", "com,example)/a"},
		{"query sorted", "https://example.com/a?b=2&a=1", "com,example)/a?a=1&b=2"},
		{"default http port dropped", "http://example.com:80/", "com,example)/"},
		{"default https port dropped", "https://example.com:443/", "com,example)/"},
		{"other port kept", "http://example.com:8080/", "com,example:8080)/"},
		{"https on 80 keeps the port", "https://example.com:80/", "com,example:80)/"},
		{"IPv4 not reversed", "http://127.0.0.1:8080/x", "127.0.0.1:8080)/x"},
		{"IPv6 not reversed", "http://[::1]:8080/x", "::1:8080)/x"},
		{"trailing dot", "https://example.com./a", "com,example)/a"},
		{"escaped path kept escaped", "https://example.com/a%20b", "com,example)/a%20b"},
		{"surrounding space", "  https://example.com/a  ", "com,example)/a"},
		{"raw space in the query kept", "https://example.com/a?q=a b", "com,example)/a?q=a b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Key(tc.in)
			if err != nil || got != tc.want {
				t.Errorf("Key(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestKeyRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "example.com/a", "ftp://example.com/", "mailto:a@example.com", "https:///path", "http://%zz/"} {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			if got, err := Key(in); err == nil {
				t.Errorf("Key(%q) = %q, want an error", in, got)
			}
		})
	}
}

func FuzzKey(f *testing.F) {
	for _, s := range []string{"https://example.com/a?b=1&a=2", "http://www.example.com:8080/", "http://[::1]/x", "https://Example.COM./A/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		k, err := Key(in)
		if err != nil {
			return
		}
		if !strings.Contains(k, ")") || strings.ContainsRune(k, 0) {
			t.Fatalf("Key(%q) = %q: no ')' or a NUL (the index uses NUL as separator)", in, k)
		}
		if k2, err := Key(in); err != nil || k2 != k {
			t.Fatalf("Key(%q) not deterministic: %q vs %q", in, k, k2)
		}
	})
}
