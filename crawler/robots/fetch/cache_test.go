package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/robots"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// site is a test origin whose /robots.txt answers with respond; it counts the requests it got.
type site struct {
	*httptest.Server
	hits    atomic.Int32
	respond atomic.Pointer[func(w http.ResponseWriter, r *http.Request)]
}

func newSite(t *testing.T, respond func(w http.ResponseWriter, r *http.Request)) *site {
	t.Helper()
	s := &site{}
	s.respond.Store(&respond)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		(*s.respond.Load())(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func status(code int, body string, header ...string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

// redirects answers /robots.txt and /rN with a chain of n redirects ending in final.
func redirects(n int, final func(w http.ResponseWriter, r *http.Request)) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		step := 0
		if r.URL.Path != "/robots.txt" {
			fmt.Sscanf(r.URL.Path, "/r%d", &step)
		}
		if step < n {
			http.Redirect(w, r, fmt.Sprintf("/r%d", step+1), http.StatusMovedPermanently)
			return
		}
		final(w, r)
	}
}

func evalPath(r *robots.File, path string) bool {
	u, err := url.Parse(r.Origin + path)
	if err != nil {
		panic(err)
	}
	return r.Evaluate("archivectl", u).Allowed
}

func TestCacheStatus(t *testing.T) {
	t.Parallel()
	const disallowAll = "User-agent: *\nDisallow: /\n"
	const private = "User-agent: *\nDisallow: /private\n"
	big := "User-agent: *\nDisallow: /early\n#" + strings.Repeat("x", 600<<10) + "\nDisallow: /late\n"
	tests := []struct {
		name    string
		respond func(w http.ResponseWriter, r *http.Request)
		avail   robots.Availability
		allowed map[string]bool
		hops    int
	}{
		{"T159 200 disallow all", status(200, disallowAll), robots.Available, map[string]bool{"/x": false, "/robots.txt": true}, 1},
		{"T160 404", status(404, disallowAll), robots.Unavailable, map[string]bool{"/x": true}, 1},
		{"T161 410", status(410, ""), robots.Unavailable, map[string]bool{"/x": true}, 1},
		{"T162 401", status(401, ""), robots.Unavailable, map[string]bool{"/x": true}, 1},
		{"T163 403", status(403, ""), robots.Unavailable, map[string]bool{"/x": true}, 1},
		{"T164 429", status(429, ""), robots.Unreachable, map[string]bool{"/x": false, "/robots.txt": true}, 1},
		{"T165 500", status(500, ""), robots.Unreachable, map[string]bool{"/x": false}, 1},
		{"T166 503", status(503, ""), robots.Unreachable, map[string]bool{"/x": false}, 1},
		{"T168 five redirects", redirects(5, status(200, private)), robots.Available, map[string]bool{"/private": false, "/public": true}, 6},
		{"T169 six redirects", redirects(6, status(200, disallowAll)), robots.Unavailable, map[string]bool{"/x": true}, 6},
		{"redirect ending in 404", redirects(2, status(404, "")), robots.Unavailable, map[string]bool{"/x": true}, 3},
		{"redirect ending in 503", redirects(2, status(503, "")), robots.Unreachable, map[string]bool{"/x": false}, 3},
		{"redirect without Location", status(302, ""), robots.Unavailable, map[string]bool{"/x": true}, 1},
		{"T172 text/html still parsed", status(200, disallowAll, "Content-Type", "text/html"), robots.Available, map[string]bool{"/x": false}, 1},
		{"empty 200 allows all", status(200, ""), robots.Available, map[string]bool{"/x": true}, 1},
		{"600 KB body truncated, not an error", status(200, big), robots.Available, map[string]bool{"/early": false, "/late": true}, 1},
		{"T173 connection reset mid-body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(200)
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			w.(http.Flusher).Flush()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}, robots.Unreachable, map[string]bool{"/x": false}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t, tc.respond)
			c := NewCache(HTTP(s.Client(), "archivectl-test"), (&clock{t: t0}).now, CacheOptions{})
			r, fresh, err := c.Get(context.Background(), s.URL)
			if err != nil || !fresh {
				t.Fatalf("Get = fresh %v, err %v; want a fresh fetch", fresh, err)
			}
			if r.Availability != tc.avail {
				t.Errorf("availability = %v (%s), want %v", r.Availability, r.Reason, tc.avail)
			}
			if len(r.Hops) != tc.hops {
				t.Errorf("hops = %d, want %d", len(r.Hops), tc.hops)
			}
			for path, want := range tc.allowed {
				if got := evalPath(r, path); got != want {
					t.Errorf("%s allowed = %v, want %v", path, got, want)
				}
			}
		})
	}
}

func TestCacheNetworkFailures(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	hang := make(chan struct{})
	slow := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-hang:
		}
	})
	t.Cleanup(func() { close(hang) })
	tlsSite := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") }))
	t.Cleanup(tlsSite.Close)
	dnsFailure := func(ctx context.Context, url string, limit int64) (*robots.Fetched, error) {
		return nil, &net.DNSError{Err: "no such host", Name: "a.example", IsNotFound: true}
	}
	tests := []struct {
		name, origin string
		fetch        Func
	}{
		{"T167 connection refused", refused, HTTP(&http.Client{}, "archivectl-test")},
		{"T167 timeout", slow.URL, HTTP(&http.Client{Timeout: 100 * time.Millisecond}, "archivectl-test")},
		{"T167 TLS failure (untrusted certificate)", tlsSite.URL, HTTP(&http.Client{}, "archivectl-test")},
		{"T167 DNS failure", "http://a.example", dnsFailure},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := NewCache(tc.fetch, (&clock{t: t0}).now, CacheOptions{})
			r, _, err := c.Get(context.Background(), tc.origin)
			if err != nil {
				t.Fatal(err)
			}
			if r.Availability != robots.Unreachable || evalPath(r, "/x") {
				t.Errorf("availability = %v (%s), /x allowed = %v; want unreachable, disallowed", r.Availability, r.Reason, evalPath(r, "/x"))
			}
		})
	}
}

func TestCacheCrossOriginRedirect(t *testing.T) {
	t.Parallel() // T170
	cdn := newSite(t, status(200, "User-agent: *\nDisallow: /\n"))
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, cdn.URL+"/robots.txt", http.StatusFound)
	})
	c := NewCache(HTTP(s.Client(), "archivectl-test"), (&clock{t: t0}).now, CacheOptions{})
	r, _, err := c.Get(context.Background(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if r.Origin != s.URL || evalPath(r, "/x") || len(r.Hops) != 2 || r.Hops[1].URL != cdn.URL+"/robots.txt" {
		t.Errorf("origin %s, /x allowed %v, hops %d; want the CDN's rules applied to %s", r.Origin, evalPath(r, "/x"), len(r.Hops), s.URL)
	}
}

// TestCacheRedirectTargets: a robots.txt redirect is followed to the origin's own URLs and to
// another origin's /robots.txt, never to another origin's other resources (docs/rules.md#d23).
func TestCacheRedirectTargets(t *testing.T) {
	t.Parallel()
	other := newSite(t, status(200, "User-agent: *\nDisallow: /\n"))
	tests := []struct {
		name     string
		location func(self string) string
		avail    robots.Availability
		hops     int
		otherHit bool
	}{
		{"own origin, other path", func(self string) string { return self + "/robots-real.txt" }, robots.Available, 2, false},
		{"other origin's robots.txt", func(string) string { return other.URL + "/robots.txt" }, robots.Available, 2, true},
		{"other origin's article", func(string) string { return other.URL + "/news/a" }, robots.Unavailable, 1, false},
		{"other origin's robots.txt with a query", func(string) string { return other.URL + "/robots.txt?v=2" }, robots.Unavailable, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := other.hits.Load()
			var self string
			s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					http.Redirect(w, r, tc.location(self), http.StatusFound)
					return
				}
				fmt.Fprint(w, "User-agent: *\nDisallow: /\n")
			})
			self = s.URL
			c := NewCache(HTTP(s.Client(), "archivectl-test"), (&clock{t: t0}).now, CacheOptions{})
			r, _, err := c.Get(context.Background(), s.URL)
			if err != nil {
				t.Fatal(err)
			}
			if r.Availability != tc.avail || len(r.Hops) != tc.hops {
				t.Errorf("availability %v, %d hops (%s); want %v, %d", r.Availability, len(r.Hops), r.Reason, tc.avail, tc.hops)
			}
			if hit := other.hits.Load() > before; hit != tc.otherHit {
				t.Errorf("the other origin was asked: %v, want %v", hit, tc.otherHit)
			}
		})
	}
}

func TestCacheStaleCopy(t *testing.T) {
	t.Parallel() // T171
	s := newSite(t, status(200, "User-agent: *\nDisallow: /private\n"))
	clk := &clock{t: t0}
	c := NewCache(HTTP(s.Client(), "archivectl-test"), clk.now, CacheOptions{})
	if _, _, err := c.Get(context.Background(), s.URL); err != nil {
		t.Fatal(err)
	}
	clk.add(30 * time.Hour)
	f := status(503, "")
	s.respond.Store(&f)
	r, fresh, err := c.Get(context.Background(), s.URL)
	if err != nil || !fresh {
		t.Fatalf("Get = fresh %v, err %v", fresh, err)
	}
	if r.Availability != robots.Unreachable || !r.Stale || !evalPath(r, "/public") || evalPath(r, "/private") {
		t.Errorf("availability %v stale %v /public %v /private %v; want the cached rules", r.Availability, r.Stale, evalPath(r, "/public"), evalPath(r, "/private"))
	}
	if hits := s.hits.Load(); hits != 2 {
		t.Errorf("server saw %d requests, want 2", hits)
	}
}

func TestCacheTTL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header []string
		ttl    time.Duration
	}{
		{"T174 max-age beyond 24 h is capped", []string{"Cache-Control", "max-age=604800"}, 24 * time.Hour},
		{"no freshness information", nil, 24 * time.Hour},
		{"max-age below 24 h", []string{"Cache-Control", "public, max-age=3600"}, time.Hour},
		{"max-age less Age", []string{"Cache-Control", "max-age=3600", "Age", "1800"}, 30 * time.Minute},
		{"no-store gets the floor", []string{"Cache-Control", "no-store"}, time.Minute},
		{"max-age=0 gets the floor", []string{"Cache-Control", "max-age=0"}, time.Minute},
		{"Expires relative to Date", []string{"Date", "Sun, 29 Nov 2026 12:00:00 GMT", "Expires", "Sun, 29 Nov 2026 14:00:00 GMT"}, 2 * time.Hour},
		{"invalid Expires is stale", []string{"Expires", "0"}, time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t, status(200, "User-agent: *\nDisallow: /x\n", tc.header...))
			clk := &clock{t: t0}
			c := NewCache(HTTP(s.Client(), "archivectl-test"), clk.now, CacheOptions{})
			r, _, err := c.Get(context.Background(), s.URL)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Expires.Sub(t0); got != tc.ttl {
				t.Errorf("ttl = %v, want %v", got, tc.ttl)
			}
			clk.add(tc.ttl - time.Second)
			if _, fresh, _ := c.Get(context.Background(), s.URL); fresh {
				t.Error("refetched before the TTL ran out")
			}
			clk.add(time.Second)
			if _, fresh, _ := c.Get(context.Background(), s.URL); !fresh {
				t.Error("not refetched when the TTL ran out")
			}
			if hits := s.hits.Load(); hits != 2 {
				t.Errorf("server saw %d requests, want 2", hits)
			}
		})
	}
}

func TestCacheUnreachable(t *testing.T) {
	t.Parallel()
	s := newSite(t, status(503, "", "Retry-After", "3600"))
	clk := &clock{t: t0}
	c := NewCache(HTTP(s.Client(), "archivectl-test"), clk.now, CacheOptions{UnreachableAllowAfter: 30 * 24 * time.Hour})
	r, _, _ := c.Get(context.Background(), s.URL)
	if r.Availability != robots.Unreachable || r.Expires != t0.Add(time.Hour) {
		t.Fatalf("availability %v expires %v; want unreachable until Retry-After", r.Availability, r.Expires)
	}
	clk.add(30*24*time.Hour - time.Hour)
	if r, _, _ = c.Get(context.Background(), s.URL); r.Availability != robots.Unreachable {
		t.Errorf("after 29 days: %v, want unreachable", r.Availability)
	}
	clk.add(time.Hour)
	if r, _, _ = c.Get(context.Background(), s.URL); r.Availability != robots.Unavailable || !evalPath(r, "/x") {
		t.Errorf("after 30 days: %v, want unavailable (allow all)", r.Availability)
	}
}

func TestCacheConcurrentSingleFetch(t *testing.T) {
	t.Parallel()
	s := newSite(t, status(200, "User-agent: *\nDisallow: /x\n"))
	c := NewCache(HTTP(s.Client(), "archivectl-test"), (&clock{t: t0}).now, CacheOptions{})
	var wg sync.WaitGroup
	var fresh atomic.Int32
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, f, err := c.Get(context.Background(), s.URL); err == nil && f {
				fresh.Add(1)
			}
		}()
	}
	wg.Wait()
	if s.hits.Load() != 1 || fresh.Load() != 1 {
		t.Errorf("server saw %d requests, %d callers fresh; want 1 and 1", s.hits.Load(), fresh.Load())
	}
}

func TestCacheContextCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fetch := func(ctx context.Context, url string, limit int64) (*robots.Fetched, error) { return nil, ctx.Err() }
	c := NewCache(fetch, (&clock{t: t0}).now, CacheOptions{})
	if _, _, err := c.Get(ctx, "http://127.0.0.1:1"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestHTTPFetchLimit(t *testing.T) {
	t.Parallel()
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != "ua-test" {
			w.WriteHeader(400)
			return
		}
		fmt.Fprint(w, strings.Repeat("x", 100))
	})
	fetch := HTTP(s.Client(), "ua-test")
	tests := []struct {
		limit     int64
		n         int
		truncated bool
	}{{99, 99, true}, {100, 100, false}, {101, 100, false}}
	for _, tc := range tests {
		f, err := fetch(context.Background(), s.URL+"/robots.txt", tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if f.Status != 200 || len(f.Body) != tc.n || f.Truncated != tc.truncated || f.URL != s.URL+"/robots.txt" {
			t.Errorf("limit %d: status %d, %d bytes, truncated %v; want 200, %d, %v", tc.limit, f.Status, len(f.Body), f.Truncated, tc.n, tc.truncated)
		}
	}
}

func TestCacheRevalidation(t *testing.T) {
	t.Parallel()
	var conditional atomic.Int32
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` && r.Header.Get("If-Modified-Since") == "Sun, 29 Nov 2026 10:00:00 GMT" {
			conditional.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Sun, 29 Nov 2026 10:00:00 GMT")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
	})
	clk := &clock{t: t0}
	c := NewCache(HTTP(s.Client(), "archivectl-test"), clk.now, CacheOptions{})
	if _, _, err := c.Get(context.Background(), s.URL); err != nil {
		t.Fatal(err)
	}
	clk.add(25 * time.Hour)
	r, fresh, err := c.Get(context.Background(), s.URL)
	if err != nil || !fresh {
		t.Fatalf("Get = fresh %v, err %v", fresh, err)
	}
	if conditional.Load() != 1 || r.Availability != robots.Available || r.Stale || r.Hops[0].Status != 304 {
		t.Errorf("conditional requests %d, availability %v, stale %v; want one 304 keeping the copy", conditional.Load(), r.Availability, r.Stale)
	}
	if evalPath(r, "/private") || !evalPath(r, "/public") || r.Expires != clk.now().Add(24*time.Hour) {
		t.Errorf("rules or TTL not kept after 304: expires %v", r.Expires)
	}
}
