package reliability

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/store"
)

// t0 is the start of every generated archive's history.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// markerPrefix starts every body marker; a marker is the prefix and 16 hex digits.
const markerPrefix = "LEAKMARK-"

// markerLen is the length of a whole marker.
const markerLen = len(markerPrefix) + 16

// slugPrefix starts every URL slug, a token in a resource's path that finds its URL in any
// file however the URL is written (SURT, JSON, a tombstone); a slug is the prefix and 8 digits.
const slugPrefix = "URLSLUG"

// slugLen is the length of a whole slug.
const slugLen = len(slugPrefix) + 8

// seedFor returns the campaign seed: ARCHIVECTL_SEED when set, else a fresh one; it is logged,
// and printed again on failure, so that any run can be repeated exactly.
func seedFor(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ARCHIVECTL_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ARCHIVECTL_SEED=%q is not an unsigned integer", s)
		}
		seed = n
	}
	t.Logf("seed %d (repeat with ARCHIVECTL_SEED=%d)", seed, seed)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("FAILED with seed %d: repeat with ARCHIVECTL_SEED=%d go test -run '^%s$' ./test/reliability/", seed, seed, t.Name())
		}
	})
	return seed
}

// campaign reports whether the full campaign was asked for (ARCHIVECTL_CAMPAIGN=full).
func campaign() bool { return os.Getenv("ARCHIVECTL_CAMPAIGN") == "full" }

// memDir is a fresh directory on a memory file system when there is one (/dev/shm): kill -9
// loses no page cache, so it tests the same protocols without paying for every fsync.
func memDir(t *testing.T) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "archivectl-reliability-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// indexEntries reads every entry of dir's index.db through the store's index.
func indexEntries(t *testing.T, dir string) map[string]store.Entry {
	t.Helper()
	ix, err := store.OpenIndex(filepath.Join(dir, layout.IndexFile), 5*time.Second)
	if err != nil {
		t.Fatalf("open index.db: %v", err)
	}
	out := map[string]store.Entry{}
	if err := ix.Each(func(e store.Entry) error {
		out[e.ID] = e
		return nil
	}); err != nil {
		t.Fatalf("read index.db: %v", err)
	}
	return out
}

// capture is one generated capture with the facts the test knows independently of the store:
// its body marker, the instant its Last-Modified states (zero when absent, invalid or
// contradictory) and the release time the embargo rule gives.
type capture struct {
	url       string
	time      time.Time
	period    embargo.Period
	lmLines   []string
	lm        time.Time // what lmLines state; zero when they state nothing valid
	lmKind    string
	marker    string
	body      []byte
	firstSeen time.Time
	original  *capture // the first capture of this URL with this body, nil when this is it
	releaseAt time.Time
	id        string // the store's capture id, once sealed

	// A requisite: the capture (page or stylesheet) whose body names its URL, and whether it is
	// withheld for it (docs/rules.md#d27): its URL may be public only once that body is.
	embedder *capture
	withheld bool
}

// urlPublic reports whether c's URL may appear under public/ at now: once the body that names
// it is due.
func (c *capture) urlPublic(now time.Time) bool { return c.embedder == nil || c.embedder.due(now) }

// due reports whether c may be public at now.
func (c *capture) due(now time.Time) bool { return !c.releaseAt.After(now) }

// generator builds random captures reproducibly from one seed.
type generator struct {
	rng    *rand.Rand
	hosts  int
	n      int                   // captures made so far
	byURL  map[string][]*capture // every capture of a URL, in sealing order
	urls   []string
	all    []*capture
	marker map[string]*capture // marker → the original capture carrying it
	slug   map[string]*capture // URL slug → the capture of the URL holding it (TestNoEarlyPublicationRequisites)
}

func newGenerator(seed uint64, hosts int) *generator {
	return &generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), hosts: hosts,
		byURL: map[string][]*capture{}, marker: map[string]*capture{}}
}

// between is a random instant in [a, b], at a whole second three times in four.
func (g *generator) between(a, b time.Time) time.Time {
	if !b.After(a) {
		return a
	}
	t := a.Add(time.Duration(g.rng.Int64N(int64(b.Sub(a)) + 1)))
	if g.rng.IntN(4) > 0 {
		t = t.Truncate(time.Second)
		if t.Before(a) {
			t = t.Add(time.Second)
		}
	}
	return t
}

// newURL is a fresh URL: several hosts, paths with queries, escapes and non-ASCII.
func (g *generator) newURL() string {
	h := g.rng.IntN(g.hosts)
	n := len(g.urls)
	var u string
	switch g.rng.IntN(5) {
	case 0:
		u = fmt.Sprintf("https://h%d.example/a/%d?b=%d&a=x", h, n, g.rng.IntN(9))
	case 1:
		u = fmt.Sprintf("http://www.h%d.example/caf%%C3%%A9/%d.html", h, n)
	case 2:
		u = fmt.Sprintf("https://h%d.example:8443/deep/%d/", h, n)
	default:
		u = fmt.Sprintf("https://h%d.example/p/%d", h, n)
	}
	g.urls = append(g.urls, u)
	return u
}

// lastModified picks the Last-Modified field lines of a capture at t: absent, invalid, in the past
// (in any of the three HTTP-date forms), in the future, or two lines that agree or disagree.
func (g *generator) lastModified(t time.Time) (lines []string, lm time.Time, kind string) {
	past := t.Add(-time.Duration(g.rng.Int64N(int64(400 * 24 * time.Hour)))).Truncate(time.Second)
	future := t.Add(time.Duration(1 + g.rng.Int64N(int64(400*24*time.Hour)))).Truncate(time.Second).Add(time.Second)
	switch g.rng.IntN(9) {
	case 0, 1:
		return nil, time.Time{}, "absent"
	case 2:
		bad := []string{"yesterday, probably", past.Format(time.RFC3339), "Mon, 32 Jan 2026 00:00:00 GMT",
			past.Format("Mon, 02 Jan 2006 15:04:05 MST") + "X", past.In(time.FixedZone("CET", 3600)).Format("Mon, 02 Jan 2006 15:04:05 -0700"), ""}
		return []string{bad[g.rng.IntN(len(bad))]}, time.Time{}, "invalid"
	case 3, 4:
		return []string{past.Format(http1123)}, past, "past"
	case 5:
		if g.rng.IntN(2) == 0 {
			return []string{past.Format("Monday, 02-Jan-06 15:04:05 GMT")}, past, "past-rfc850"
		}
		return []string{past.Format("Mon Jan _2 15:04:05 2006")}, past, "past-asctime"
	case 6:
		return []string{future.Format(http1123)}, future, "future"
	case 7:
		return []string{past.Format(http1123), past.Format(http1123)}, past, "two-agree"
	default:
		return []string{past.Format(http1123), past.Add(time.Hour).Format(http1123)}, time.Time{}, "two-disagree"
	}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

// newBody is a body carrying a fresh marker three times (start, middle, end), so that even a
// partial leak shows.
func (g *generator) newBody() (string, []byte) {
	g.n++
	m := fmt.Sprintf("%s%016x", markerPrefix, g.rng.Uint64())
	filler := strings.Repeat("lorem ipsum dolor sit amet ", g.rng.IntN(120))
	return m, []byte(fmt.Sprintf("<!doctype html><title>%s</title><p>%s</p><p>%s</p><!-- %s -->\n", m, filler, m, m))
}

// next makes one capture taken in [from, to]: a recapture of a known URL one time in five
// (its body unchanged — a revisit — in most of those), else a new URL.
func (g *generator) next(from, to time.Time) *capture {
	c := &capture{period: []embargo.Period{embargo.None, embargo.Week, embargo.Month, embargo.Quarter}[g.rng.IntN(4)]}
	c.time = g.between(from, to)
	if len(g.urls) > 0 && g.rng.IntN(5) == 0 {
		u := g.urls[g.rng.IntN(len(g.urls))]
		prev := g.byURL[u][len(g.byURL[u])-1]
		if at := prev.time.Truncate(time.Second).Add(time.Second); c.time.Before(at) {
			c.time = at // one capture of a URL a second at most, later than the one before
		}
		if !c.time.After(to) {
			c.url = u
			if g.rng.IntN(4) > 0 {
				orig := prev
				if prev.original != nil {
					orig = prev.original
				}
				c.marker, c.body, c.original = orig.marker, orig.body, orig
			}
		}
	}
	if c.url == "" {
		c.url = g.newURL()
		c.time = g.between(from, to)
	}
	if c.body == nil {
		c.marker, c.body = g.newBody()
		g.marker[c.marker] = c
	}
	c.lmLines, c.lm, c.lmKind = g.lastModified(c.time)
	c.firstSeen = c.time
	if c.original != nil {
		c.firstSeen = c.original.time
	}
	// The release rule (docs/rules.md#release-time, docs/rules.md#d7, docs/rules.md#d15), computed
	// here from what the generator knows:
	// min(Last-Modified, first seen) + period, a future Last-Modified never winning.
	start := c.firstSeen
	if !c.lm.IsZero() && c.lm.Before(start) {
		start = c.lm
	}
	c.releaseAt = start.Add(time.Duration(c.period) * 24 * time.Hour)
	if c.original != nil && c.original.releaseAt.After(c.releaseAt) {
		c.releaseAt = c.original.releaseAt // a revisit is never public before its original
	}
	g.byURL[c.url] = append(g.byURL[c.url], c)
	g.all = append(g.all, c)
	return c
}

// storeCapture is c as the crawler would hand it to the store.
func (c *capture) storeCapture() store.Capture {
	u, _ := url.Parse(c.url)
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: archivectl-reliability\r\n\r\n", u.RequestURI(), u.Host)
	var h strings.Builder
	h.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n")
	for _, l := range c.lmLines {
		fmt.Fprintf(&h, "Last-Modified: %s\r\n", l)
	}
	fmt.Fprintf(&h, "Content-Length: %d\r\n\r\n", len(c.body))
	return store.Capture{URL: c.url, Time: c.time, IP: "127.0.0.1", Request: []byte(req),
		Response: append([]byte(h.String()), c.body...), Period: c.period, Rule: "1 archive-embargo " + c.period.String(),
		Usage: []string{"train-ai=n"}, UsageHeader: []string{"train-ai=n"}}
}

// seal writes caps into the store of dir in batches of random sizes, as one crawl would, and
// records each capture's id.
func seal(t *testing.T, dir string, rng *rand.Rand, now time.Time, caps []*capture, maxFile int64) {
	t.Helper()
	s, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger(), Now: func() time.Time { return now }, MaxFileSize: maxFile})
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	defer s.Close()
	for len(caps) > 0 {
		k := min(len(caps), 1+rng.IntN(80))
		batch := make([]store.Capture, k)
		for i, c := range caps[:k] {
			batch[i] = c.storeCapture()
		}
		es, err := s.Seal(context.Background(), batch)
		if err != nil {
			t.Fatalf("Seal: %v", err)
		}
		for i, e := range es {
			caps[i].id = e.ID
		}
		caps = caps[k:]
	}
	if err := s.Close(); err != nil {
		t.Fatalf("store Close: %v", err)
	}
}

// asScanError is errors.As for *store.ScanError.
func asScanError(err error, target **store.ScanError) bool { return errors.As(err, target) }
