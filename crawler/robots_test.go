package crawler

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRobotsRefetchedWhenExpired runs a crawl in process on a clock that jumps ten minutes at
// every reading: robots.txt (max-age=60) expires before each page and is fetched again first,
// conditionally. Each page's metadata names the robots.txt capture whose rules decided it: the
// last 200, since a 304 only confirms it.
func TestRobotsRefetchedWhenExpired(t *testing.T) {
	t.Parallel()
	var notModified atomic.Int32
	o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Cache-Control", "max-age=60")
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` && notModified.Add(1) > 1 { // the second refetch gets a 200 again
				w.WriteHeader(http.StatusNotModified)
				return
			}
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
		case "/":
			io.WriteString(w, `<a href="/a">a</a>`)
		case "/a":
			io.WriteString(w, `<a href="/b">b</a><a href="/private">p</a>`)
		case "/b":
			io.WriteString(w, `end`)
		}
	}))
	var mu sync.Mutex
	clock := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(10 * time.Minute)
		return clock
	}
	arch := &fakeArchive{}
	sum, _, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, o.URL+"/"), Now: now, Sitemaps: SitemapsRobots}, arch)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/robots.txt", "/", "/robots.txt", "/a", "/robots.txt", "/b", "/robots.txt"}
	if got := o.Paths(); !slices.Equal(got, want) {
		t.Fatalf("requests %v, want %v (robots.txt again before each URL, /private never)", got, want)
	}
	if sum.Pages != 3 || sum.Robots != 4 || sum.Disallowed != 1 {
		t.Fatalf("summary %+v", sum)
	}
	var deciding string
	var statuses []int
	for _, c := range arch.sealed() { // in sealing order
		if c.Robots {
			statuses = append(statuses, c.Entry.Status)
			if c.Entry.Status == http.StatusOK {
				deciding = c.Entry.ID
			}
			continue
		}
		if c.RobotsID != deciding {
			t.Errorf("%s names robots.txt capture %q, want the last 200, %s", c.URL, c.RobotsID, deciding)
		}
	}
	if !slices.Equal(statuses, []int{200, 200, 304, 304}) {
		t.Errorf("robots.txt statuses %v, want 200, then 200 (unconditional answer), then 304s", statuses)
	}
}

// TestRobotsUnreachableCounted: a URL whose robots.txt got no answer at all is an error of the
// crawl (robots-unreachable); one whose robots.txt answered 503 is disallowed, as RFC 9309 asks,
// and counted as such.
func TestRobotsUnreachableCounted(t *testing.T) {
	t.Parallel()
	down := newOrigin(t, status("/robots.txt", http.StatusServiceUnavailable, map[string]string{"/": "home"}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/"
	ln.Close() // nothing listens there: connection refused
	sum, _, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, down.URL+"/", dead)}, &fakeArchive{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 0 || sum.Disallowed != 1 || sum.Unreachable != 1 || sum.Errors[errRobotsUnreachable] != 1 || len(sum.Errors) != 1 {
		t.Errorf("summary %+v, want no page, 1 URL disallowed by the 503 and 1 robots-unreachable error", sum)
	}
	var b strings.Builder
	sum.WriteTo(&b)
	if !strings.Contains(b.String(), "errors       robots-unreachable=1\n") || !strings.Contains(b.String(), "disallowed   1\n") {
		t.Errorf("summary printed as\n%s", b.String())
	}
}
