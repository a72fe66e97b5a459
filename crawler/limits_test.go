package crawler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/crawler/crawlertest"
)

// TestLimits checks depth, page and redirect limits and scope, in process, from the server's log.
func TestLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		maxDepth int
		maxPages int
		want     []string // paths requested, robots.txt aside, sorted
	}{
		{"no limit", 0, 0, []string{"/", "/a", "/b", "/c", "/r/0", "/r/1", "/r/10", "/r/2", "/r/3", "/r/4", "/r/5", "/r/6", "/r/7", "/r/8", "/r/9", "/sitemap.xml"}},
		{"depth 1: the seed and its links; redirects keep their depth", 1, 0, []string{"/", "/a", "/r/0", "/r/1", "/r/10", "/r/2", "/r/3", "/r/4", "/r/5", "/r/6", "/r/7", "/r/8", "/r/9", "/sitemap.xml"}},
		{"two pages", 0, 2, []string{"/", "/a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var other *crawlertest.Server
			o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				p := r.URL.Path
				switch {
				case p == "/":
					fmt.Fprintf(w, `<a href="/a">a</a><a href="/r/0">r</a><a href="%s/elsewhere">out of scope</a>`, other.URL)
				case p == "/a":
					io.WriteString(w, `<a href="/b">b</a>`)
				case p == "/b":
					io.WriteString(w, `<a href="/c">c</a>`)
				case strings.HasPrefix(p, "/r/"): // a chain of redirects longer than maxRedirects
					n, _ := strconv.Atoi(strings.TrimPrefix(p, "/r/"))
					http.Redirect(w, r, "/r/"+strconv.Itoa(n+1), http.StatusFound)
				}
			}))
			other = newOrigin(t, http.NotFoundHandler())
			_, _, err := crawlInto(context.Background(), t, Config{
				Seeds: seedURLs(t, o.URL+"/"), MaxDepth: tc.maxDepth, MaxPages: tc.maxPages,
			}, &fakeArchive{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range o.Paths() {
				if p != "/robots.txt" {
					got = append(got, p)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("requested %v, want %v", got, tc.want)
			}
			if n := len(other.Log()); n != 0 {
				t.Fatalf("an origin out of scope got %d requests", n)
			}
		})
	}
}
