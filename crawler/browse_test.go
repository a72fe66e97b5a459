package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/browser"
	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/store"
)

// TestOpenWithoutChromium: a crawl with a browser that cannot be found stops before it starts,
// with the error that says what to install or set.
func TestOpenWithoutChromium(t *testing.T) {
	t.Parallel()
	seed, _ := url.Parse("http://127.0.0.1:1/")
	_, err := Open(Config{DataDir: t.TempDir(), Seeds: []*url.URL{seed}, Browser: &browser.Options{Chromium: "/nonexistent/chromium"}})
	if !errors.Is(err, browser.ErrNoChromium) {
		t.Fatalf("Open = %v, want ErrNoChromium", err)
	}
}

// TestCrawlStopsWhenChromiumCannotStart: a browser found but unable to start (a binary that is
// no Chromium, a sandbox that forbids it) stops the crawl at the first HTML page with ErrStart,
// instead of going on as a plain crawl; it is tried once, not at every page.
func TestCrawlStopsWhenChromiumCannotStart(t *testing.T) {
	t.Parallel()
	fake := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'not a browser' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	site := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><a href="/a">a</a> <a href="/b">b</a>`)
		}
	}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, log, err := crawlInto(ctx, t, Config{Seeds: seedURLs(t, site.URL+"/"), Sitemaps: SitemapsOff,
		Browser: &browser.Options{Chromium: fake, Tabs: 1, Wait: 5 * time.Second}}, &fakeArchive{})
	if !errors.Is(err, browser.ErrStart) {
		t.Fatalf("crawl = %v, want ErrStart\n%s", err, log)
	}
	if n := strings.Count(log, "chromium started"); n != 0 {
		t.Errorf("chromium reported started %d times\n%s", n, log)
	}
}

// TestBrowserLoadsOnce crawls three pages that load, by script, one shared image and JSON, an
// image each, and an image whose origin first answers 503 with Retry-After: every resource is
// captured once (served from its capture to the pages after the first), as a requisite of the
// page that first asked with its capture id, the 503 retried after its Retry-After, each origin
// polite throughout.
func TestBrowserLoadsOnce(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	var busy atomic.Int32
	img := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case r.URL.Path == "/busy.png" && busy.Add(1) == 1:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, "\x89PNG\r\n\x1a\n"+r.URL.Path)
		}
	}))
	script := func(n int) string {
		return fmt.Sprintf(`<!doctype html><a href="/p%d">next</a><script>
for (const src of ["%[2]s/shared.png", "%[2]s/own%[1]d.png", "%[2]s/busy.png"]) { const i = new Image(); i.src = src; document.body.append(i); }
fetch("/shared.json");
</script>`, n, img.URL)
	}
	site := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/shared.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{}`)
		case "/", "/p1", "/p2":
			n := map[string]int{"/": 1, "/p1": 2, "/p2": 3}[r.URL.Path]
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, script(n))
		default:
			http.NotFound(w, r)
		}
	}))
	const delay = 50 * time.Millisecond
	a := &fakeArchive{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum, log, err := crawlInto(ctx, t, Config{Seeds: seedURLs(t, site.URL+"/"), Delay: delay, RetryBackoff: delay, Retries: 2,
		Sitemaps: SitemapsOff, Browser: &browser.Options{Chromium: chromium, Tabs: 2, Wait: 20 * time.Second}}, a)
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, log)
	}
	if sum.Rendered != 3 {
		t.Errorf("%d pages rendered, want 3\n%s", sum.Rendered, log)
	}
	checkPolite(t, "site", site, delay)
	checkPolite(t, "images", img, delay)
	caps := a.byURL()
	pageIDs := map[string]string{}
	for _, p := range []string{"/", "/p1", "/p2"} {
		if cs := caps[site.URL+p]; len(cs) == 1 {
			pageIDs[site.URL+p] = cs[0].Entry.ID
		}
	}
	want := []string{site.URL + "/shared.json", img.URL + "/shared.png", img.URL + "/own1.png", img.URL + "/own2.png", img.URL + "/own3.png"}
	for _, u := range want {
		cs := caps[u]
		if len(cs) != 1 {
			t.Errorf("%s: %d captures, want 1", u, len(cs))
			continue
		}
		c := cs[0]
		if c.LoadedBy != store.LoadedByBrowser || c.RequisiteOfID == "" || pageIDs[c.RequisiteOf] != c.RequisiteOfID {
			t.Errorf("%s: loaded_by %q, requisite_of %s (%s); the pages are %v", u, c.LoadedBy, c.RequisiteOf, c.RequisiteOfID, pageIDs)
		}
	}
	var busyHits []crawlertest.Hit
	for _, h := range img.Log() {
		if h.Path == "/busy.png" {
			busyHits = append(busyHits, h)
		}
	}
	if len(busyHits) != 2 {
		t.Fatalf("/busy.png requested %d times, want 2 (the 503, then after Retry-After)", len(busyHits))
	}
	if gap := busyHits[1].Start.Sub(busyHits[0].End); gap < time.Second {
		t.Errorf("/busy.png retried %v after its 503, before its Retry-After of 1s", gap)
	}
	if cs := caps[img.URL+"/busy.png"]; len(cs) != 1 || statusOf(cs[0].Capture) != http.StatusOK {
		t.Errorf("/busy.png: %d captures, want the 200 once", len(cs))
	}
}

// TestHeld: a capture holds its raw bytes, and its payload when that is a copy of its own.
func TestHeld(t *testing.T) {
	t.Parallel()
	raw := []byte("HTTP/1.1 200 OK\r\n\r\nbody")
	for _, tc := range []struct {
		name string
		x    exchange
		want int64
	}{
		{"payload within the raw response", exchange{Request: []byte("GET"), Response: raw, Body: raw[len(raw)-4:]}, int64(3 + len(raw))},
		{"payload decoded apart", exchange{Request: []byte("GET"), Response: raw, Body: []byte("decoded body")}, int64(3 + len(raw) + 12)},
		{"payload longer than the raw bytes", exchange{Response: []byte("ab"), Body: []byte("abcd")}, 6},
		{"nothing", exchange{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := held(&tc.x); got != tc.want {
				t.Errorf("held = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestLoadsLetGo: past the budget the least recently served capture is let go, and a browser
// asking for it again visits it anew; one held is served, and a visit in progress waited for.
func TestLoadsLetGo(t *testing.T) {
	t.Parallel()
	l := newLoads(25)
	x := func(n int) *exchange { return &exchange{Response: make([]byte, n)} }
	a, fresh := l.forBrowser("a")
	if !fresh {
		t.Fatal("a first asked for is not fresh")
	}
	a.keep(x(10), embargo.Quarter)
	a.finish()
	b, _ := l.forBrowser("b")
	b.keep(x(10), embargo.None)
	b.finish()
	if again, fresh := l.forBrowser("a"); fresh {
		t.Fatal("a held capture was not served")
	} else if got, period := again.served(); got == nil || period != embargo.Quarter { // a becomes the most recently served
		t.Fatalf("a held capture served as %v, period %v; want it, with its own period (q)", got, period)
	}
	c, _ := l.forBrowser("c")
	c.keep(x(10), embargo.None) // 30 bytes: b, least recently served, goes
	c.finish()
	if _, fresh := l.forBrowser("a"); fresh {
		t.Error("a, served lately, was let go")
	}
	if e, fresh := l.forBrowser("b"); !fresh || e == b {
		t.Error("b, let go, is not visited anew")
	}
	inProgress, _ := l.forBrowser("d")
	if waiter, fresh := l.forBrowser("d"); fresh || waiter != inProgress {
		t.Error("a browser asking for a URL being visited does not wait for that visit")
	}
}
