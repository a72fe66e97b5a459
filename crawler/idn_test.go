package crawler

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestCrawlIDNSpellings crawls one loopback origin under both spellings of an internationalised
// host name, bücher.test and its punycode xn--bcher-kva.test, pages linking to each other under
// either: the crawl keys them as one origin, requests each page once, and every sealed capture
// holds its own URL's request and body.
func TestCrawlIDNSpellings(t *testing.T) {
	t.Parallel()
	const n = 120
	o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" || r.URL.Path == "/sitemap.xml" {
			http.NotFound(w, r)
			return
		}
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<title>page %d</title>", i)
		for _, j := range []int{i + 1, i + 2, 2*i + 1} {
			if j < n {
				fmt.Fprintf(w, `<a href="/p/%d">r</a><a href="http://bücher.test:%[2]s/p/%[1]d">u</a><a href="http://xn--bcher-kva.test:%[2]s/p/%[1]d">a</a>`, j, port(r.Host))
			}
		}
		fmt.Fprint(w, strings.Repeat(" ", 4096)) // long enough for one exchange to overlap the next
	}))
	p := port(strings.TrimPrefix(o.URL, "http://"))
	arch := &fakeArchive{}
	_, _, err := crawlInto(context.Background(), t, Config{
		Seeds:       seedURLs(t, "http://bücher.test:"+p+"/p/0", "http://xn--bcher-kva.test:"+p+"/p/0", "http://BÜCHER.test:"+p+"/p/1"),
		Concurrency: 4, Resolve: map[string]string{"bücher.test": "127.0.0.1"},
	}, arch)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, s := range arch.sealed() {
		if s.Robots {
			continue
		}
		u, err := url.Parse(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if u.Hostname() != "xn--bcher-kva.test" {
			t.Errorf("capture of %s: host not in its ASCII form", s.URL)
		}
		seen[u.Path]++
		line, _, _ := bytes.Cut(s.Request, []byte("\r\n"))
		if want := "GET " + u.RequestURI() + " HTTP/1.1"; string(line) != want {
			t.Errorf("capture of %s holds the request %q", s.URL, line)
		}
		var i int
		fmt.Sscanf(u.Path, "/p/%d", &i)
		if !bytes.Contains(s.Response, fmt.Appendf(nil, "<title>page %d</title>", i)) {
			t.Errorf("capture of %s holds another page's body", s.URL)
		}
	}
	if len(seen) != n {
		t.Errorf("%d pages sealed, want %d", len(seen), n)
	}
	for p, k := range seen {
		if k != 1 {
			t.Errorf("%s sealed %d times, want once", p, k)
		}
	}
	for _, h := range o.Log() {
		if strings.HasPrefix(h.Path, "/p/") && seen[h.Path] == 0 {
			t.Errorf("%s requested but not sealed", h.Path)
		}
	}
}

// port is the port of a host:port.
func port(hostport string) string {
	_, p, _ := strings.Cut(hostport, ":")
	return p
}
