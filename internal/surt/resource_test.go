package surt

import (
	"errors"
	"strings"
	"testing"
)

func TestResourceKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want, kind string }{
		{"urn:dom:http://www.example.com/a/", "urn:dom:http://www.example.com/a/", "dom"},
		{"urn:view:https://example.com:8443/?b&a", "urn:view:https://example.com:8443/?b&a", "view"},
		{"urn:text:http://127.0.0.1:8080/", "urn:text:http://127.0.0.1:8080/", "text"},
		{"urn:dom:http://example.com/a b", "", ""},
		{"urn:dom:urn:dom:http://example.com/", "", ""}, // the page must be an http(s) URL
		{"urn:Dom:http://example.com/", "", ""},
		{"urn::http://example.com/", "", ""},
		{"urn:" + strings.Repeat("a", maxKind+1) + ":http://example.com/", "", ""},
		{"urn:dom:", "", ""},
		{"urn:dom:ftp://example.com/", "", ""},
		{"http://example.com/", "", ""},
		{"urn:uuid:0f0e4c9e-7a4e-4f8c-9c9e-2f8e2f6c4b1a", "", ""},
	} {
		got, err := ResourceKey(tc.in)
		if got != tc.want || (tc.want == "") != errors.Is(err, ErrNotResource) {
			t.Errorf("ResourceKey(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if k := ResourceKind(tc.in); k != tc.kind {
			t.Errorf("ResourceKind(%q) = %q, want %q", tc.in, k, tc.kind)
		}
	}
}

// FuzzResourceKey: a resource key is the URI itself, "urn:KIND:" and a page URL Key takes, never
// also a URL's key.
func FuzzResourceKey(f *testing.F) {
	for _, s := range []string{"urn:dom:http://example.com/", "urn:view:https://a.b/c?d", "urn:x:", "urn:dom:urn:view:http://a/", "http://a/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		k, err := ResourceKey(raw)
		if err != nil {
			if k != "" || !errors.Is(err, ErrNotResource) {
				t.Fatalf("ResourceKey(%q) = %q, %v", raw, k, err)
			}
			return
		}
		kind := ResourceKind(raw)
		if _, err := Key(strings.TrimPrefix(raw, "urn:"+kind+":")); err != nil || k != raw || kind == "" {
			t.Fatalf("ResourceKey(%q) = %q (kind %q); the page: %v", raw, k, kind, err)
		}
		if _, err := Key(raw); err == nil {
			t.Fatalf("%q is keyed both as a URL and as a resource", raw)
		}
	})
}
