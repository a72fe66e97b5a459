package reliability

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// requestLog counts the requests a server answered, per path.
type requestLog struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.n[r.URL.Path]++
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) count(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for p, c := range l.n {
		if strings.HasPrefix(p, prefix) {
			n += c
		}
	}
	return n
}

// hostileCase is one of the ten hostile servers of the crawler issue and what the archive must
// look like after crawling it: the crawl always ends, and whatever is sealed verifies.
type hostileCase struct {
	name, path string
	check      func(t *testing.T, es []store.Entry, log *requestLog)
}

// bounded fails when a capture's sealed response is over limit bytes.
func bounded(limit int64) func(t *testing.T, es []store.Entry, log *requestLog) {
	return func(t *testing.T, es []store.Entry, log *requestLog) {
		for _, e := range es {
			if e.Response.Length > limit {
				t.Errorf("%s: sealed response of %d bytes, over %d", e.URL, e.Response.Length, limit)
			}
		}
	}
}

// undated fails unless every capture's release time ignores its Last-Modified (docs/rules.md#d15: invalid or future).
func undated(t *testing.T, es []store.Entry, log *requestLog) {
	if len(es) == 0 {
		t.Errorf("not captured")
	}
	for _, e := range es {
		if want := e.FirstSeen.Add(e.Period.Duration()); !e.ReleaseAt.Equal(want) {
			t.Errorf("%s: Last-Modified %q: release %s, want first seen + period = %s", e.URL, e.LastModified, e.ReleaseAt, want)
		}
	}
}

// hostileCases are the ten hostile servers (crawler/crawlertest) with their checks; maxBody is the crawl's MaxBody.
func hostileCases(maxBody int64) []hostileCase {
	return []hostileCase{
		{"endless body", "/hostile/endless", bounded(maxBody + 64<<10)},
		{"one byte a second", "/hostile/slow", bounded(maxBody + 64<<10)},
		{"redirect loop", "/hostile/loop/", func(t *testing.T, es []store.Entry, log *requestLog) {
			if n := log.count("/hostile/loop/"); n > 30 {
				t.Errorf("the redirect loop was followed %d times", n)
			}
		}},
		{"1 MB of headers", "/hostile/headers", bounded(2 << 20)},
		{"gzip bomb", "/hostile/bomb", bounded(maxBody + 64<<10)},
		{"invalid Last-Modified", "/hostile/bad-date", undated},
		{"future Last-Modified", "/hostile/future-date", undated},
		{"reset mid-body", "/hostile/reset", bounded(64 << 10)},
		{"binary garbage as HTML", "/hostile/garbage", bounded(maxBody + 64<<10)},
		{"huge robots.txt", "/private", func(t *testing.T, es []store.Entry, log *requestLog) {
			if n := log.count("/private"); n > 0 {
				t.Errorf("/private, disallowed at the top of a huge robots.txt, was fetched %d times", n)
			}
		}},
	}
}

// TestHostileServers crawls the ten hostile servers of crawler/crawlertest (one origin, a huge
// robots.txt) beside a healthy origin, with the real crawler and store, and checks that the crawl
// ends in bounded time, each hostile case leaves a bounded, verifiable archive, the healthy
// origin is crawled in full, and a release pass and both verifiers are clean afterwards.
func TestHostileServers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for a crawl timeout")
	}
	seedFor(t)
	const maxBody = 1 << 20
	log := &requestLog{n: map[string]int{}}
	mux := crawlertest.HostileMux()
	mux.Handle("/robots.txt", crawlertest.HugeRobots(2<<20))
	mux.HandleFunc("/private/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "private") })
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<a href="/hostile/">hostile</a> <a href="/private/x">private</a>`)
	})
	bad := httptest.NewServer(log.wrap(mux))
	defer bad.Close()
	good := newSite(t, 1, 20, 7)

	dir := memDir(t)
	seeds, err := crawler.ParseSeeds(strings.NewReader(bad.URL + "/\n" + good.seeds()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	cr, err := crawler.Open(crawler.Config{DataDir: dir, Seeds: seeds, Delay: 0, Timeout: 3 * time.Second,
		MaxBody: maxBody, Retries: 0, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cr.Run(ctx, crawler.StoreArchive(st))
	took := time.Since(start)
	if err != nil {
		t.Fatalf("crawl: %v", err)
	}
	if err := errors.Join(st.Close(), cr.Close()); err != nil {
		t.Fatal(err)
	}
	if took > time.Minute {
		t.Errorf("the crawl took %v", took)
	}
	entries := indexEntries(t, dir)
	byPath := func(origin, prefix string) []store.Entry {
		var out []store.Entry
		for _, e := range entries {
			if strings.HasPrefix(e.URL, origin+prefix) && !e.Robots {
				out = append(out, e)
			}
		}
		return out
	}
	for _, tc := range hostileCases(maxBody) {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path != "/private" && log.count(tc.path) == 0 {
				t.Errorf("%s was never requested: the suite did not reach it", tc.path)
			}
			tc.check(t, byPath(bad.URL, tc.path), log)
		})
	}
	if n := len(byPath(good.servers[0].URL, "/p/")); n != 20 {
		t.Errorf("the healthy origin: %d of 20 pages captured", n)
	}
	ps, err := store.Verify(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		t.Errorf("store.Verify: %s", p)
	}
	if _, err := release.New(dir, release.Options{Logger: testkit.QuietLogger()}).Pass(context.Background(), time.Now().AddDate(1, 0, 0)); err != nil {
		t.Fatalf("release pass: %v", err)
	}
	pub, err := release.Verify(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pub {
		t.Errorf("release.Verify: %s", p)
	}
	t.Logf("hostile crawl: %d captures sealed in %v; %d requests to the hostile origin", len(entries), took.Round(time.Millisecond), log.count("/"))
}
