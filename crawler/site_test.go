package crawler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/store"
)

// fakeArchive is an Archive in memory. It seals every capture except those whose URL contains
// failing (when set), with ids <urn:fake:N> in sealing order, and answers Captured from them.
type fakeArchive struct {
	failing string

	mu      sync.Mutex
	caps    []store.Capture
	entries []store.Entry
}

func (a *fakeArchive) Seal(_ context.Context, caps []store.Capture) ([]store.Entry, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var es []store.Entry
	for _, c := range caps {
		if a.failing != "" && strings.Contains(c.URL, a.failing) {
			return nil, errors.New("disk says no")
		}
		es = append(es, store.Entry{
			ID: fmt.Sprintf("<urn:fake:%d>", len(a.caps)+len(es)), URL: c.URL, Time: c.Time, Status: statusOf(c),
			Robots: c.Robots, Period: c.Period, FirstSeen: c.Time, ReleaseAt: c.Time.Add(c.Period.Duration()),
		})
	}
	a.caps = append(a.caps, caps...)
	a.entries = append(a.entries, es...)
	return es, nil
}

func (a *fakeArchive) Captured(_ context.Context, rawURL string, at time.Time) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range a.entries {
		if e.URL == rawURL && e.Time.Equal(at) {
			return e.ID, nil
		}
	}
	return "", nil
}

// sealed is a capture the fake sealed, with its entry.
type sealed struct {
	store.Capture
	Entry store.Entry
}

// sealed returns what was sealed so far, in sealing order.
func (a *fakeArchive) sealed() []sealed {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]sealed, len(a.caps))
	for i := range a.caps {
		out[i] = sealed{a.caps[i], a.entries[i]}
	}
	return out
}

// byURL groups what was sealed by URL.
func (a *fakeArchive) byURL() map[string][]sealed {
	m := map[string][]sealed{}
	for _, s := range a.sealed() {
		m[s.URL] = append(m[s.URL], s)
	}
	return m
}

// statusOf reads the status code from a capture's raw response; 0 when there is none.
func statusOf(c store.Capture) int {
	line, _, _ := bytes.Cut(c.Response, []byte("\r\n"))
	f := strings.Fields(string(line))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// logBuffer collects log lines; safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// crawlInto opens a crawl of cfg (in a new data directory unless cfg.DataDir is set), runs it
// into a and closes it. Its log, from the debug level up, is returned.
func crawlInto(ctx context.Context, t *testing.T, cfg Config, a Archive) (Summary, string, error) {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	var log logBuffer
	cfg.Log = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := Open(cfg)
	if err != nil {
		return Summary{}, log.String(), err
	}
	sum, err := c.Run(ctx, a)
	if cerr := c.Close(); cerr != nil {
		t.Errorf("closing the crawl: %v", cerr)
	}
	return sum, log.String(), err
}

// seedURLs parses seeds as a seeds file holding urls.
func seedURLs(t *testing.T, urls ...string) []*url.URL {
	t.Helper()
	seeds, err := ParseSeeds(strings.NewReader(strings.Join(urls, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	return seeds
}

// newOrigin serves h on 127.0.0.1 for the test, logging requests.
func newOrigin(t *testing.T, h http.Handler) *crawlertest.Server {
	t.Helper()
	o := crawlertest.NewServer(h)
	t.Cleanup(o.Close)
	return o
}

// checkPolite fails the test where o's log shows a breach of politeness.
func checkPolite(t *testing.T, name string, o *crawlertest.Server, gap time.Duration) {
	t.Helper()
	if err := o.CheckPolite(gap); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}

// pages serves a small site from a map of path → HTML (robots.txt as text).
func pages(m map[string]string) http.Handler { return crawlertest.Pages(m) }

// status answers path with code and everything else with a page from m.
func status(path string, code int, m map[string]string) http.Handler {
	h := pages(m)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path {
			http.Error(w, http.StatusText(code), code)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
