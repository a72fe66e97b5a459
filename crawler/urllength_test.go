package crawler

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestCrawlURLLengthLimit: a URL longer than the limit, at any entry point (a link, a requisite,
// a redirect's target, a sitemap entry, a robots.txt Sitemap line, a seed), is neither fetched
// nor persisted, it is logged and counted, and the page holding it is sealed.
func TestCrawlURLLengthLimit(t *testing.T) {
	t.Parallel()
	long := "/" + strings.Repeat("x", 40<<10)
	tests := []struct {
		name  string
		site  map[string]string
		limit int
		sum   int // Summary.TooLong
	}{
		{"link", map[string]string{"/": `<a href="` + long + `">l</a><a href="/ok">ok</a>`}, 0, 1},
		{"requisite", map[string]string{"/": `<img src="` + long + `"><a href="/ok">ok</a>`}, 0, 1},
		{"link over a limit set", map[string]string{"/": `<a href="/` + strings.Repeat("y", 300) + `">l</a><a href="/ok">ok</a>`}, 256, 1},
		{"sitemap entry", map[string]string{"/": `<a href="/ok">ok</a>`, // a sitemap's own bound is 2,048 characters
			"/sitemap.xml": `<urlset><url><loc>/` + strings.Repeat("y", 300) + `</loc></url><url><loc>/ok</loc></url></urlset>`}, 256, 1},
		{"robots.txt Sitemap line", map[string]string{"/": `<a href="/ok">ok</a>`, "/robots.txt": "Sitemap: " + long + "\n"}, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			site := map[string]string{"/ok": "ok"}
			for k, v := range tc.site {
				site[k] = v
			}
			o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/redirect" {
					http.Redirect(w, r, long, http.StatusFound)
					return
				}
				pages(site).ServeHTTP(w, r)
			}))
			arch := &fakeArchive{}
			sum, log, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, o.URL+"/"), MaxURLLength: tc.limit}, arch)
			if err != nil {
				t.Fatal(err)
			}
			got := arch.byURL()
			if len(got[o.URL+"/"]) != 1 || len(got[o.URL+"/ok"]) != 1 {
				t.Errorf("sealed %v, want / and /ok", slices.Sorted(maps.Keys(got)))
			}
			for _, h := range o.Log() {
				if len(h.Path) > 256 {
					t.Errorf("a URL of %d bytes was requested", len(h.Path))
				}
			}
			if sum.TooLong != tc.sum || !strings.Contains(log, "URLs longer than the limit: not followed") {
				t.Errorf("TooLong = %d, want %d; log:\n%.2000s", sum.TooLong, tc.sum, log)
			}
		})
	}
	t.Run("redirect", func(t *testing.T) {
		t.Parallel()
		o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/" {
				http.Redirect(w, r, long, http.StatusFound)
				return
			}
			pages(map[string]string{}).ServeHTTP(w, r)
		}))
		arch := &fakeArchive{}
		sum, _, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, o.URL+"/")}, arch)
		if err != nil {
			t.Fatal(err)
		}
		if len(arch.byURL()[o.URL+"/"]) != 1 || sum.TooLong != 1 {
			t.Errorf("the redirect sealed %d times, TooLong %d; want 1 and 1", len(arch.byURL()[o.URL+"/"]), sum.TooLong)
		}
	})
}

// TestSeedURLLength: a seed longer than the limit is an invalid line naming its length and the
// limit, in a seeds file and in a Config.
func TestSeedURLLength(t *testing.T) {
	t.Parallel()
	long := "http://a.example/" + strings.Repeat("x", 40<<10)
	_, err := ReadSeeds(strings.NewReader("http://a.example/\n" + long + "\n"))
	var se *SeedError
	if !errors.As(err, &se) || len(se.Lines) != 1 || se.Lines[0].Line != 2 || !strings.Contains(err.Error(), "the limit is 8192") {
		t.Fatalf("ReadSeeds: %v", err)
	}
	if len(err.Error()) > 1000 {
		t.Errorf("the error quotes the whole line: %d bytes", len(err.Error()))
	}
	if _, err := ReadSeedsMax(strings.NewReader("http://a.example/abc\n"), 10); !errors.As(err, &se) {
		t.Errorf("ReadSeedsMax(10) accepted a URL of 20 bytes: %v", err)
	}
	u := mustCanonical(t, "http://a.example/")
	u.Path = "/" + strings.Repeat("x", 40<<10)
	if _, err := Open(Config{DataDir: t.TempDir(), Seeds: []*url.URL{u}}); !errors.Is(err, ErrURLTooLong) {
		t.Errorf("Open with a 40 KB seed: %v, want ErrURLTooLong", err)
	}
	if err := (Config{MaxURLLength: MaxURLLengthCeiling + 1}).Validate(); err == nil {
		t.Errorf("a limit above the ceiling was accepted")
	}
}
