package crawlertest

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHostileCases(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(HostileMux())
	t.Cleanup(srv.Close)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	index, err := http.Get(srv.URL + "/hostile/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(index.Body)
	index.Body.Close()
	seen := map[string]bool{}
	for _, c := range HostileCases() {
		if seen[c.Path] {
			t.Errorf("path %s mounted twice", c.Path)
		}
		seen[c.Path] = true
		if c.Path != "/hostile/" && !strings.Contains(string(page), `"`+c.Path+`"`) {
			t.Errorf("the index does not link %s", c.Path)
		}
	}
	tests := []struct {
		name  string
		path  string
		check func(t *testing.T, r *http.Response)
	}{
		{"redirect loop", "/hostile/loop/a", func(t *testing.T, r *http.Response) {
			if r.StatusCode != http.StatusFound || r.Header.Get("Location") != "/hostile/loop/b" {
				t.Fatalf("%d to %q", r.StatusCode, r.Header.Get("Location"))
			}
		}},
		{"gzip bomb inflates far beyond its size", "/hostile/bomb", func(t *testing.T, r *http.Response) {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, io.LimitReader(zr, 64<<20))
			if r.ContentLength > 1<<20 || n < 64<<20 {
				t.Fatalf("%d bytes inflate to at least %d", r.ContentLength, n)
			}
		}},
		{"invalid Last-Modified verbatim", "/hostile/bad-date", func(t *testing.T, r *http.Response) {
			if r.Header.Get("Last-Modified") != "yesterday, probably" {
				t.Fatalf("Last-Modified %q", r.Header.Get("Last-Modified"))
			}
		}},
		{"reset mid-body", "/hostile/reset", func(t *testing.T, r *http.Response) {
			if _, err := io.ReadAll(r.Body); err == nil {
				t.Fatal("the body read to its end")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
			req.Header.Set("Accept-Encoding", "identity")
			r, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Body.Close()
			tc.check(t, r)
		})
	}
}

func TestHugeRobots(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(HugeRobots(10 << 20))
	t.Cleanup(srv.Close)
	r, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if len(b) != 10<<20 || !strings.HasPrefix(string(b), "User-agent: *\nDisallow: /private\n") {
		t.Fatalf("%d bytes starting %q", len(b), b[:40])
	}
}
