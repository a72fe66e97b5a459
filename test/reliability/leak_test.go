package reliability

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/crawler/browser"
	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/lookup"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// TestNoEarlyPublication is the leak property test: random archives (captures with random
// periods, Last-Modified values, recaptures and capture times, sealed between passes at random
// and at adversarial instants — exactly at a release time, one nanosecond before it) are
// released pass after pass; after every pass no embargoed body's marker is anywhere under
// public/ (gzip members decompressed) nor in any lookup answer, every due capture is public,
// and both verifiers are clean. ARCHIVECTL_CAMPAIGN=full runs more and longer archives.
func TestNoEarlyPublication(t *testing.T) {
	t.Parallel()
	seed := seedFor(t)
	archives, passes := 1, 6
	if campaign() {
		archives, passes = 10, 12
	}
	checked := 0
	for i := range archives {
		n := leakTrial(t, seed+uint64(i), 1000, passes)
		checked += n
		t.Logf("archive %d (seed %d): %d captures × passes checked", i, seed+uint64(i), n)
		if t.Failed() {
			return
		}
	}
	t.Logf("leak property: %d archives of 1000 captures, %d captures × passes checked, 0 leaks", archives, checked)
}

// leakTrial builds one random archive of n captures over the given number of passes and returns
// how many captures × passes it checked.
func leakTrial(t *testing.T, seed uint64, n, passes int) int {
	t.Helper()
	dir := memDir(t)
	g := newGenerator(seed, 7)
	rng := rand.New(rand.NewPCG(seed, 1))
	r := release.New(dir, release.Options{ShardSize: 48 << 10, Logger: testkit.QuietLogger()})
	now := t0
	srv, err := lookup.Open(filepath.Join(dir, "public"), lookup.Options{Now: func() time.Time { return now }, Logger: testkit.QuietLogger()})
	if err != nil {
		t.Fatalf("lookup.Open: %v", err)
	}
	checked := 0
	prev := t0
	for p := range passes {
		// The pass time: a random step, or exactly at (or just before) a pending release time.
		now = prev.Add(time.Duration(1 + rng.Int64N(int64(40*24*time.Hour))))
		var pending []*capture
		for _, c := range g.all {
			if c.releaseAt.After(prev) {
				pending = append(pending, c)
			}
		}
		if len(pending) > 0 && rng.IntN(2) == 0 {
			c := pending[rng.IntN(len(pending))]
			now = c.releaseAt
			if rng.IntN(2) == 0 && c.releaseAt.Add(-time.Nanosecond).After(prev) {
				now = c.releaseAt.Add(-time.Nanosecond)
			}
		}
		if p == passes-1 {
			now = now.Add(200 * 24 * time.Hour) // the last pass releases almost everything
		}
		// The captures of this round, crawled since the previous pass (the first round: a long crawl).
		k := n / passes
		if p == 0 {
			k += n % passes
		}
		from := prev
		if p == 0 {
			from = t0.Add(-300 * 24 * time.Hour)
		}
		round := make([]*capture, k)
		for i := range round {
			round[i] = g.next(from, now)
		}
		seal(t, dir, rng, now, round, 256<<10)
		if _, err := r.Pass(context.Background(), now); err != nil {
			t.Fatalf("pass %d at %s: %v", p, now.Format(time.RFC3339Nano), err)
		}
		if _, err := srv.Refresh(); err != nil {
			t.Fatalf("lookup Refresh: %v", err)
		}
		checked += checkPass(t, dir, srv, g, now, p == 0 || p == passes/2 || p == passes-1)
		if t.Failed() {
			t.Fatalf("pass %d at %s failed (seed %d)", p, now.Format(time.RFC3339Nano), seed)
		}
		prev = now
	}
	// Idempotence: one more pass at the same instant changes no byte under public/.
	before := treeDigest(t, filepath.Join(dir, "public"))
	if _, err := r.Pass(context.Background(), now); err != nil {
		t.Fatalf("repeated pass: %v", err)
	}
	if after := treeDigest(t, filepath.Join(dir, "public")); after != before {
		t.Errorf("a second pass at %s changed public/ (seed %d)", now.Format(time.RFC3339Nano), seed)
	}
	return checked
}

// checkPass checks the archive after a pass at now and returns how many captures it checked.
func checkPass(t *testing.T, dir string, srv http.Handler, g *generator, now time.Time, verify bool) int {
	t.Helper()
	allowed := map[string]bool{} // the markers that may be public: those of a due capture
	for _, c := range g.all {
		if c.due(now) {
			allowed[c.marker] = true
		}
	}
	leak := func(where string, found map[string]bool) {
		for m := range found {
			if !allowed[m] {
				c := g.marker[m]
				if c == nil {
					t.Errorf("LEAK at pass %s: %s holds the body of a resource never captured as itself (marker %s)", now.Format(time.RFC3339Nano), where, m)
					continue
				}
				t.Errorf("LEAK at pass %s: %s holds the body of %s (captured %s, release %s, Last-Modified %q %s, period %s)",
					now.Format(time.RFC3339Nano), where, c.url, c.time.Format(time.RFC3339Nano), c.releaseAt.Format(time.RFC3339Nano), c.lmLines, c.lmKind, c.period)
			}
		}
	}

	// 1. Every byte under public/, gzip members decompressed.
	public := publicMarkers(t, filepath.Join(dir, "public"))
	for m, where := range public {
		leak(where, map[string]bool{m: true})
	}

	// 1b. No URL read from a body not yet public (a requisite's, and so every requisite_of of
	// a requisite it embeds in turn) is anywhere under public/: not in a tombstone, a CDXJ line,
	// the access rules nor the audit log (docs/rules.md#d27).
	urlLeak := func(where, self string, found map[string]bool) {
		for sl := range found {
			if c := g.slug[sl]; sl != self && c != nil && !c.urlPublic(now) {
				t.Errorf("LEAK at pass %s: %s holds the URL %s, read from the body of %s (release %s)",
					now.Format(time.RFC3339Nano), where, c.url, c.embedder.url, c.embedder.releaseAt.Format(time.RFC3339Nano))
			}
		}
	}
	if g.slug != nil {
		for sl, where := range publicTokens(t, filepath.Join(dir, "public"), slugPrefix, slugLen) {
			urlLeak(where, "", map[string]bool{sl: true})
		}
	}

	// 2. The index: every capture in the state and at the release time the rule gives.
	entries := indexEntries(t, dir)
	for _, c := range g.all {
		e, ok := entries[c.id]
		switch {
		case !ok:
			t.Errorf("capture %s of %s is not in the index", c.id, c.url)
			continue
		case !e.ReleaseAt.Equal(c.releaseAt):
			t.Errorf("%s captured %s, Last-Modified %q (%s), first seen %s, period %s: release time %s, the rule gives %s",
				c.url, c.time.Format(time.RFC3339Nano), c.lmLines, c.lmKind, c.firstSeen.Format(time.RFC3339Nano), c.period,
				e.ReleaseAt.Format(time.RFC3339Nano), c.releaseAt.Format(time.RFC3339Nano))
		case c.due(now) && e.State != store.Released:
			t.Errorf("%s (release %s) is due at %s but %s", c.url, c.releaseAt.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano), e.State)
		case !c.due(now) && c.withheld && e.State != store.Sealed:
			t.Errorf("%s (release %s), withheld for %s, is not due at %s but %s", c.url, c.releaseAt.Format(time.RFC3339Nano), c.embedder.url, now.Format(time.RFC3339Nano), e.State)
		case !c.due(now) && !c.withheld && e.State != store.Tombstoned:
			t.Errorf("%s (release %s) is not due at %s but %s", c.url, c.releaseAt.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano), e.State)
		}
		if e.Withheld() != c.withheld {
			t.Errorf("%s: withheld %v in the index, the rule gives %v", c.url, e.Withheld(), c.withheld)
		}
		if c.due(now) && public[c.marker] == "" {
			t.Errorf("%s is due (release %s ≤ %s) but its body is nowhere under public/", c.url, c.releaseAt.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano))
		}
	}

	// 3. Every lookup answer about every URL.
	self := "" // the slug of the URL asked about: an answer may name it
	ask := func(target string) (int, []byte) {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		b := rec.Body.Bytes()
		found, slugs := map[string]bool{}, map[string]bool{}
		scanMarkers(b, found)
		scanTokens(b, slugPrefix, slugLen, slugs)
		if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			if plain, err := gunzip(b); err == nil {
				scanMarkers(plain, found)
				scanTokens(plain, slugPrefix, slugLen, slugs)
			}
		}
		leak("GET "+target, found)
		urlLeak("GET "+target, self, slugs)
		return rec.Code, b
	}
	for u, cs := range g.byURL {
		q := url.QueryEscape(u)
		self = slugOf(u)
		code, b := ask("/api/v1/captures?url=" + q)
		var ans struct {
			Captures []struct {
				Timestamp time.Time `json:"timestamp"`
				State     string    `json:"state"`
				ReleaseAt string    `json:"release_at"`
			} `json:"captures"`
		}
		visible := 0 // a withheld capture is not public at all, not even as a tombstone
		for _, c := range cs {
			if !c.withheld || c.due(now) {
				visible++
			}
		}
		switch {
		case visible == 0 && code == http.StatusNotFound: // nothing public: never made public
		case code != http.StatusOK || json.Unmarshal(b, &ans) != nil:
			t.Errorf("captures of %s: %d %.200s", u, code, b)
			continue
		}
		if len(ans.Captures) != visible {
			t.Errorf("captures of %s: %d in the answer, %d sealed, %d public or tombstoned", u, len(ans.Captures), len(cs), visible)
		}
		for _, c := range cs {
			if c.withheld && !c.due(now) {
				for _, a := range ans.Captures {
					if a.Timestamp.Equal(c.time) {
						t.Errorf("captures of %s: the capture at %s, withheld for %s until %s, is in the answer", u, c.time, c.embedder.url, c.releaseAt)
					}
				}
				code, _ := ask(fmt.Sprintf("/api/v1/record?url=%s&timestamp=%s&format=payload", q, c.time.UTC().Format("20060102150405")))
				if code != http.StatusNotFound {
					t.Errorf("record of %s, withheld for %s until %s: %d, want 404", u, c.embedder.url, c.releaseAt, code)
				}
				continue
			}
			ts := c.time.UTC().Format(time.RFC3339Nano)
			want := map[bool]string{true: "released", false: "embargoed"}[c.due(now)]
			hit := false
			for _, a := range ans.Captures {
				if a.Timestamp.Equal(c.time) {
					hit = true
					if a.State != want || a.ReleaseAt != c.releaseAt.UTC().Format(time.RFC3339Nano) {
						t.Errorf("captures of %s at %s: state %s, release %s; want %s, %s", u, ts, a.State, a.ReleaseAt, want, c.releaseAt.UTC().Format(time.RFC3339Nano))
					}
				}
			}
			if !hit {
				t.Errorf("captures of %s: none at %s (captured %s) in %s", u, ts, c.time.Format(time.RFC3339Nano), b)
			}
			for _, format := range []string{"payload", "warc.gz", "warc"} {
				code, b := ask(fmt.Sprintf("/api/v1/record?url=%s&timestamp=%s&format=%s", q, c.time.UTC().Format("20060102150405"), format))
				// A revisit's record holds no payload: only format=payload serves its original's body.
				body := c.original == nil || format == "payload"
				switch {
				case c.due(now) && (code != http.StatusOK || body && !containsMarker(b, c.marker)):
					t.Errorf("record of %s at %s (%s), due: %d without its body", u, ts, format, code)
				case !c.due(now) && code != http.StatusUnavailableForLegalReasons:
					t.Errorf("record of %s at %s (%s), embargoed until %s: %d, want 451", u, ts, format, c.releaseAt.Format(time.RFC3339Nano), code)
				}
			}
		}
		ask("/api/v1/record?url=" + q + "&format=payload")
		ask("/?url=" + q)
	}
	self = ""
	ask("/api/v1/calendar")
	for h := range g.hosts {
		ask(fmt.Sprintf("/api/v1/captures?url=%s&matchType=prefix&limit=1000", url.QueryEscape(fmt.Sprintf("https://h%d.example/", h))))
	}

	// 4. Both verifiers (they read everything, slowly: after the first, middle and last passes).
	if !verify {
		return len(g.all)
	}
	ps, err := store.Verify(context.Background(), dir)
	if err != nil {
		t.Fatalf("store.Verify: %v", err)
	}
	for _, p := range ps {
		t.Errorf("store.Verify: %s", p)
	}
	pub, err := release.Verify(context.Background(), dir)
	if err != nil {
		t.Fatalf("release.Verify: %v", err)
	}
	for _, p := range pub {
		t.Errorf("release.Verify: %s", p)
	}
	return len(g.all)
}

// containsMarker reports whether b, or b gunzipped, holds marker.
func containsMarker(b []byte, marker string) bool {
	if bytes.Contains(b, []byte(marker)) {
		return true
	}
	plain, err := gunzip(b)
	return err == nil && bytes.Contains(plain, []byte(marker))
}

// gunzip decompresses every gzip member of b.
func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// scanMarkers adds every marker found in b to found.
func scanMarkers(b []byte, found map[string]bool) { scanTokens(b, markerPrefix, markerLen, found) }

// scanTokens adds every token of the given prefix and length found in b to found.
func scanTokens(b []byte, prefix string, n int, found map[string]bool) {
	for {
		i := bytes.Index(b, []byte(prefix))
		if i < 0 {
			return
		}
		if len(b)-i >= n {
			found[string(b[i:i+n])] = true
		} else {
			found[string(b[i:])] = true // a cut token is a leak of its own
		}
		b = b[i+len(prefix):]
	}
}

// slugOf is the URL slug in u, "" when it holds none.
func slugOf(u string) string {
	found := map[string]bool{}
	scanTokens([]byte(u), slugPrefix, slugLen, found)
	for sl := range found {
		return sl
	}
	return ""
}

// publicMarkers returns every marker found in any file under dir, raw or gunzipped, with the
// file it was found in.
func publicMarkers(t *testing.T, dir string) map[string]string {
	t.Helper()
	return publicTokens(t, dir, markerPrefix, markerLen)
}

// publicTokens returns every token of the given prefix and length found in any file under dir,
// raw or gunzipped, with the file it was found in.
func publicTokens(t *testing.T, dir, prefix string, n int) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		found := map[string]bool{}
		scanTokens(b, prefix, n, found)
		if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			plain, err := gunzip(b)
			if err != nil {
				t.Errorf("%s: not whole gzip members: %v", p, err)
			}
			scanTokens(plain, prefix, n, found) // what was read before any error counts too
		}
		rel, _ := filepath.Rel(dir, p)
		for m := range found {
			out[m] = "public/" + rel
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return out
}

// treeDigest is a digest of every file name, mode and content under dir.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(n)
		fmt.Fprintf(h, "%s %v %d\n", n, st.Mode(), len(b))
		h.Write(b)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestNoEarlyPublicationRequisites is the leak property over crawled page requisites: random
// page origins embed images and stylesheets from random shared CDN origins (in half the webs,
// from each other too: embeds in the scope), whose stylesheets pull fonts and images from
// others, every origin with a random robots.txt (none, w, m, q, a disallowed path, 503) and random Archive-Embargo response fields and Last-Modified values.
// The real crawler and store archive it; every capture must carry its own origin's embargo
// (never its page's); nothing disallowed or on an unreachable origin is requested; then release
// passes at random and adversarial instants must never publish a body before its time
// (checkPass, as for TestNoEarlyPublication), nor a requisite's URL (every resource path holds
// a slug), its provenance or its tombstone before the body of the page naming it is public: a
// requisite of a page under embargo is withheld until it (docs/rules.md#d27).
func TestNoEarlyPublicationRequisites(t *testing.T) {
	t.Parallel()
	seed := seedFor(t)
	trials := 2
	if campaign() {
		trials = 10
	}
	checked := 0
	for i := range trials {
		n := requisiteTrial(t, seed+uint64(i), "")
		checked += n
		if t.Failed() {
			return
		}
	}
	t.Logf("leak property: %d crawled webs with cross-origin requisites, %d captures × passes checked, 0 leaks", trials, checked)
}

// TestNoEarlyPublicationBrowser is TestNoEarlyPublicationRequisites crawled with a browser
// (crawl --browser), a third of each page's images and stylesheets inserted by script only:
// what the browser loads keeps its own origin's robots.txt, politeness and embargo, and waits
// for its page's body like any requisite. Each page's rendered DOM is sealed too
// (crawl.browser.snapshot dom): it holds the page's body, so is public exactly when the page is.
func TestNoEarlyPublicationBrowser(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	seed := seedFor(t)
	trials := 1
	if campaign() {
		trials = 4
	}
	checked := 0
	for i := range trials {
		checked += requisiteTrial(t, seed+uint64(i), chromium)
		if t.Failed() {
			return
		}
	}
	t.Logf("leak property with --browser: %d crawled webs, %d captures × passes checked, 0 leaks", trials, checked)
}

// webResource is one file a trial's origin serves.
type webResource struct {
	marker, body, ctype string
	header              string    // Archive-Embargo response field, "" for none
	lastModified        time.Time // zero: no Last-Modified
	embeds              []string  // absolute URLs it embeds (a page or a stylesheet)
	links               []string  // paths on its own origin it links to (a page)
}

// webOrigin is one origin of a trial, with the policy its robots.txt states.
type webOrigin struct {
	srv      *crawlertest.Server
	robots   string // robots.txt body; "" answers 404
	down     bool   // robots.txt answers 503: nothing else may be requested
	period   embargo.Period
	disallow string // a path prefix robots.txt disallows; "" for none
	redirect string // where /robots.txt redirects (setRedirect); "" serves it directly
	res      map[string]*webResource
}

// allowed reports whether the origin's robots.txt lets the crawler fetch path.
func (o *webOrigin) allowed(path string) bool {
	return !o.down && (o.disallow == "" || !strings.HasPrefix(path, o.disallow))
}

// randomOrigin starts an origin with a random policy.
func randomOrigin(t *testing.T, rng *rand.Rand) *webOrigin {
	o := &webOrigin{res: map[string]*webResource{}}
	switch rng.IntN(6) {
	case 0: // no robots.txt
	case 1:
		o.down = true
	default:
		o.period = []embargo.Period{embargo.None, embargo.Week, embargo.Month, embargo.Quarter}[rng.IntN(4)]
		o.robots = "User-agent: *\n"
		if o.period != embargo.None {
			o.robots += "Archive-Embargo: " + o.period.String() + "\n"
		}
		if rng.IntN(2) == 0 {
			o.disallow = "/priv/"
			o.robots += "Disallow: /priv/\n"
		}
	}
	o.srv = crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt" && o.redirect != "":
			http.Redirect(w, r, o.redirect, http.StatusFound)
			return
		case r.URL.Path == "/r1": // one step of a chain
			http.Redirect(w, r, "/robots-real.txt", http.StatusMovedPermanently)
			return
		}
		if r.URL.Path == "/robots.txt" || r.URL.Path == "/robots-real.txt" {
			switch {
			case o.down:
				http.Error(w, "down", http.StatusServiceUnavailable)
			case o.robots == "":
				http.NotFound(w, r)
			default:
				io.WriteString(w, o.robots)
			}
			return
		}
		res, ok := o.res[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", res.ctype)
		if res.header != "" {
			w.Header().Set("Archive-Embargo", res.header)
		}
		if !res.lastModified.IsZero() {
			w.Header().Set("Last-Modified", res.lastModified.UTC().Format(http.TimeFormat))
		}
		io.WriteString(w, res.body)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

// setRedirect makes o's /robots.txt redirect, of a random kind, and updates the policy the model
// expects of o: the rules of what the redirects reach, where docs/rules.md#d23 lets the crawler
// follow them. A redirect to another origin's resource (one with a marker, perhaps embargoed or
// disallowed there) must never be fetched, archived as robots.txt evidence, or published.
func (o *webOrigin) setRedirect(rng *rand.Rand, targets, all []*webOrigin) {
	var resources []string // URLs of every origin's resources, o's own included
	for _, x := range all {
		for p := range x.res {
			resources = append(resources, x.srv.URL+p)
		}
	}
	slices.Sort(resources)
	unavailable := func() { o.robots, o.down, o.period, o.disallow = "", false, embargo.None, "" }
	switch k := rng.IntN(6); {
	case k == 0:
		o.redirect = "/robots-real.txt" // same origin: followed, its rules apply
	case k == 1:
		o.redirect = "/r1" // a chain on the same origin
	case k == 2:
		o.redirect = "/robots.txt" // a loop: a sixth redirect makes it unavailable
		unavailable()
	case k == 3 && len(targets) > 0: // another origin's robots.txt: followed, its rules govern o
		x := targets[rng.IntN(len(targets))]
		o.redirect = x.srv.URL + "/robots.txt"
		o.robots, o.down, o.period, o.disallow = x.robots, x.down, x.period, x.disallow
	case len(resources) > 0:
		target := resources[rng.IntN(len(resources))]
		o.redirect = target
		if strings.HasPrefix(target, o.srv.URL+"/") {
			// o's own resource is o's robots.txt: fetched and parsed (a page or image holds no
			// rules: everything allowed), archived as neither robots.txt nor content.
			o.robots, o.down, o.period, o.disallow = "", false, embargo.None, ""
		} else {
			unavailable() // another origin's resource: not followed
		}
	}
}

// addResource puts a file of the given kind on o at path, with a fresh marker and random
// response fields, and returns its URL.
func (o *webOrigin) addResource(rng *rand.Rand, path, kind string) string {
	r := &webResource{marker: fmt.Sprintf("%s%016x", markerPrefix, rng.Uint64())}
	r.header = []string{"", "", "w", "m", "q", "90d"}[rng.IntN(6)]
	if rng.IntN(2) == 0 {
		r.lastModified = time.Now().Add(-time.Duration(rng.Int64N(int64(60 * 24 * time.Hour)))).Truncate(time.Second)
	}
	switch kind {
	case "css":
		r.ctype = "text/css"
	case "img":
		r.ctype, r.body = "image/png", "PNG "+r.marker
	default:
		r.ctype = "text/html"
	}
	o.res[path] = r
	return o.srv.URL + path
}

// requisiteTrial crawls one random web of page and CDN origins, checks each capture's
// embargo against its own origin's policy, then releases pass after pass and checks that no
// body is public early. With chromium, the crawl renders pages in it, and a third of each
// page's embeds are inserted by script. It returns how many captures × passes it checked.
func requisiteTrial(t *testing.T, seed uint64, chromium string) int {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	headerOn := rng.IntN(2) == 0
	var pageOrigins, cdns []*webOrigin
	for range 2 + rng.IntN(2) {
		pageOrigins = append(pageOrigins, randomOrigin(t, rng))
	}
	for range 5 {
		cdns = append(cdns, randomOrigin(t, rng))
	}
	all := append(slices.Clone(pageOrigins), cdns...)
	n := 0
	path := func(dir, ext string) string {
		n++
		if rng.IntN(4) == 0 {
			dir = "/priv" + dir
		}
		return fmt.Sprintf("%s/%d-%s%08d.%s", dir, n, slugPrefix, n, ext)
	}
	// With inScope, a third of the embeds are on another page origin, a seed's, so in the scope:
	// crawled as pages, yet withheld for their page like any requisite (docs/rules.md#d27). Its
	// own stream keeps the rest of each seed's web as it was.
	rngScope := rand.New(rand.NewPCG(seed, 3))
	inScope := rngScope.IntN(2) == 0
	host := func(cdn *webOrigin) *webOrigin {
		if inScope && rngScope.IntN(3) == 0 {
			return pageOrigins[rngScope.IntN(len(pageOrigins))]
		}
		return cdn
	}
	for _, po := range pageOrigins {
		pagesHere := []string{"/"}
		for range 1 + rng.IntN(3) {
			pagesHere = append(pagesHere, path("/p", "html"))
		}
		for _, p := range pagesHere {
			po.addResource(rng, p, "html")
			page := po.res[p]
			if p == "/" {
				page.links = pagesHere[1:]
			}
			for range 2 + rng.IntN(4) {
				cdn := host(cdns[rng.IntN(len(cdns))])
				if rng.IntN(3) > 0 {
					page.embeds = append(page.embeds, cdn.addResource(rng, path("/i", "png"), "img"))
					continue
				}
				css := cdn.addResource(rng, path("/s", "css"), "css")
				sheet := cdn.res[strings.TrimPrefix(css, cdn.srv.URL)]
				for range 1 + rng.IntN(2) {
					other := all[rng.IntN(len(all))]
					sheet.embeds = append(sheet.embeds, other.addResource(rng, path("/f", "woff2"), "img"))
				}
				page.embeds = append(page.embeds, css)
			}
		}
	}
	// robots.txt redirects of every kind, now that every URL is known; one to another origin's
	// robots.txt only ever reaches one that serves its own.
	var redirecting, direct []*webOrigin
	for _, o := range all {
		if rng.IntN(2) == 0 {
			redirecting = append(redirecting, o)
		} else {
			direct = append(direct, o)
		}
	}
	for _, o := range redirecting {
		o.setRedirect(rng, direct, all)
	}
	for _, o := range all { // bodies, now that every URL is known
		for _, r := range o.res {
			switch r.ctype {
			case "text/html":
				var b strings.Builder
				fmt.Fprintf(&b, "<!doctype html><p>%s</p>", r.marker)
				for _, l := range r.links {
					fmt.Fprintf(&b, `<a href="%s">page</a>`, l)
				}
				for i, e := range r.embeds {
					if chromium != "" && i%3 == 2 { // only a browser finds it
						if strings.HasSuffix(e, ".css") {
							fmt.Fprintf(&b, `<script>{const l = document.createElement("link"); l.rel = "stylesheet"; l.href = %q; document.head.append(l)}</script>`, e)
						} else {
							fmt.Fprintf(&b, `<script>{const i = new Image(); i.src = %q; document.body.append(i)}</script>`, e)
						}
						continue
					}
					if strings.HasSuffix(e, ".css") {
						fmt.Fprintf(&b, `<link rel="stylesheet" href="%s">`, e)
					} else if i%2 == 0 {
						fmt.Fprintf(&b, `<img src="%s">`, e)
					} else {
						fmt.Fprintf(&b, `<div style="background:url('%s')"></div>`, e)
					}
				}
				r.body = b.String()
			case "text/css":
				var b strings.Builder
				fmt.Fprintf(&b, "/* %s */\n", r.marker)
				for _, e := range r.embeds {
					fmt.Fprintf(&b, "@font-face{font-family:F;src:url(%q)}\n", e)
				}
				r.body = b.String()
			}
		}
	}

	// What the crawl must do, from the model: every resource reachable from the seeds through
	// allowed pages and stylesheets, and allowed itself, is captured with its own origin's period.
	type want struct {
		o   *webOrigin
		res *webResource
	}
	byURL := map[string]want{}
	for _, o := range all {
		for p, r := range o.res {
			byURL[o.srv.URL+p] = want{o, r}
		}
	}
	expect := map[string]embargo.Period{}
	var visit func(u string)
	visit = func(u string) {
		w, ok := byURL[u]
		if _, seen := expect[u]; !ok || seen || !w.o.allowed(strings.TrimPrefix(u, w.o.srv.URL)) {
			return
		}
		p := w.o.period
		if hp, ok := embargo.ParsePeriod(w.res.header); headerOn && ok && hp > p {
			p = hp
		}
		expect[u] = p
		for _, l := range w.res.links {
			visit(w.o.srv.URL + l)
		}
		for _, e := range w.res.embeds {
			visit(e)
		}
	}
	var seeds []*url.URL
	for _, po := range pageOrigins {
		u, _ := url.Parse(po.srv.URL + "/")
		seeds = append(seeds, u)
		visit(u.String())
	}

	embedderOf := map[string]string{}  // resource URL → the page or stylesheet embedding it
	namedByRobots := map[string]bool{} // URLs a robots.txt redirect names, public at once
	for _, o := range all {
		for p, r := range o.res {
			for _, e := range r.embeds {
				embedderOf[e] = o.srv.URL + p
			}
		}
		if o.redirect != "" {
			namedByRobots[o.redirect] = true
		}
	}

	robotsTarget := map[*webOrigin]bool{}
	for _, o := range all {
		for _, x := range all {
			if x != o && o.redirect == x.srv.URL+"/robots.txt" {
				robotsTarget[x] = true
			}
		}
	}
	dir := memDir(t)
	cfg := crawler.Config{DataDir: dir, Seeds: seeds, Delay: 0, Timeout: 5 * time.Second, HeaderEmbargo: headerOn, Log: testkit.QuietLogger()}
	if chromium != "" {
		cfg.Browser = &browser.Options{Chromium: chromium, Snapshot: browser.Snapshot{DOM: true}}
	}
	cr, err := crawler.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cr.Run(context.Background(), crawler.StoreArchive(st)); err != nil {
		t.Fatalf("crawl: %v", err)
	}
	if err := errors.Join(st.Close(), cr.Close()); err != nil {
		t.Fatal(err)
	}
	for _, o := range all {
		for _, h := range o.srv.Log() {
			robotsHop := h.Path == "/robots.txt" || o.redirect != "" && (h.Path == "/r1" || h.Path == "/robots-real.txt")
			if !robotsHop && !o.allowed(h.Path) {
				t.Errorf("seed %d: %s%s requested, which its robots.txt forbids (503: %v)", seed, o.srv.URL, h.Path, o.down)
			}
		}
		if robotsTarget[o] {
			// Another origin's robots.txt redirect fetched this /robots.txt outside this origin's
			// queue (docs/rules.md#d23): one request in flight is checked for every other path.
			checkPoliteExceptRobots(t, seed, o.srv)
			continue
		}
		if err := o.srv.CheckPolite(0); len(o.srv.Log()) > 0 && err != nil {
			t.Errorf("seed %d: %s: %v", seed, o.srv.URL, err)
		}
	}

	// The captures, as the test knows them: each with its own origin's period.
	g := &generator{byURL: map[string][]*capture{}, marker: map[string]*capture{}, slug: map[string]*capture{}}
	snapshots := map[string]store.Entry{} // capture id → a page's rendered DOM (crawl.browser.snapshot)
	for id, e := range indexEntries(t, dir) {
		if strings.HasPrefix(e.URL, "urn:dom:") {
			snapshots[id] = e
			continue
		}
		if e.Robots {
			if !embargo.RobotsExempt(e.URL) {
				t.Errorf("seed %d: %s archived as robots.txt evidence, outside every embargo", seed, e.URL)
			}
			continue
		}
		w, ok := byURL[e.URL]
		p, expected := expect[e.URL]
		if !ok || !expected {
			t.Errorf("seed %d: %s captured, not expected", seed, e.URL)
			continue
		}
		if e.Period != p {
			t.Errorf("seed %d: %s captured with %v, its own origin (and field %q, switch %v) asks %v", seed, e.URL, e.Period, w.res.header, headerOn, p)
		}
		c := &capture{url: e.URL, time: e.Time, period: p, marker: w.res.marker, body: []byte(w.res.body), firstSeen: e.Time, id: id}
		start := c.time
		if lm := w.res.lastModified; !lm.IsZero() && lm.Before(start) {
			start, c.lm, c.lmKind, c.lmLines = lm, lm, "past", []string{lm.UTC().Format(http.TimeFormat)}
		}
		c.releaseAt = start.Add(p.Duration())
		g.all = append(g.all, c)
		g.byURL[c.url] = append(g.byURL[c.url], c)
		g.marker[c.marker] = c
		if sl := slugOf(c.url); sl != "" {
			g.slug[sl] = c
		}
	}
	if chromium != "" { // what only scripts insert is captured too
		for u := range expect {
			if len(g.byURL[u]) == 0 {
				t.Errorf("seed %d: %s not captured, though its page's browser loads it", seed, u)
			}
		}
	}
	// A requisite of a page (or stylesheet) not public by its own capture time is withheld for
	// it: released no earlier than that page, never tombstoned (docs/rules.md#d27). Its URL may
	// be public only once that page's body is, unless a robots.txt redirect names it anyway.
	var withhold func(c *capture)
	resolved := map[*capture]bool{}
	withhold = func(c *capture) {
		if resolved[c] {
			return
		}
		resolved[c] = true
		ps := g.byURL[embedderOf[c.url]]
		if len(ps) != 1 {
			return
		}
		p := ps[0]
		withhold(p)
		if p.releaseAt.After(c.time) {
			c.withheld = true
			if p.releaseAt.After(c.releaseAt) {
				c.releaseAt = p.releaseAt
			}
		}
		if !namedByRobots[c.url] {
			c.embedder = p
		}
	}
	for _, c := range g.all {
		withhold(c)
	}
	if len(g.all) != len(expect) {
		t.Errorf("seed %d: %d captures, the model expects %d", seed, len(g.all), len(expect))
	}
	// A page's rendered DOM holds the page's body (its marker, the URLs it names) and shows what
	// its browser was given (docs/rules.md#d27): dated at the render's end, it takes the longest
	// period of the page and of those captures, counted from then, and is never public before the
	// page; withheld always (no tombstone). The browser surely loads the page's own embeds (the
	// lower bound); a stylesheet's embeds (fonts) only when used (the upper bound).
	for id, e := range snapshots {
		ps := g.byURL[strings.TrimPrefix(e.URL, "urn:dom:")]
		if len(ps) != 1 {
			t.Errorf("seed %d: %s sealed for %d captures of its page", seed, e.URL, len(ps))
			continue
		}
		p := ps[0]
		lo, hi := p.period, p.period
		for _, r := range g.all {
			switch {
			case embedderOf[r.url] == p.url:
				lo, hi = max(lo, r.period), max(hi, r.period)
			case embedderOf[embedderOf[r.url]] == p.url:
				hi = max(hi, r.period)
			}
		}
		bound := func(d embargo.Period) time.Time {
			if at := e.Time.Add(d.Duration()); at.After(p.releaseAt) {
				return at
			}
			return p.releaseAt
		}
		if e.ReleaseAt.Before(bound(lo)) || e.ReleaseAt.After(bound(hi)) || !e.Withheld() || e.Time.Before(p.time) {
			t.Errorf("seed %d: %s taken %s, release %s (withheld %v); want taken after its page (%s), withheld, released between %s and %s",
				seed, e.URL, e.Time, e.ReleaseAt, e.Withheld(), p.time, bound(lo), bound(hi))
		}
		c := &capture{url: e.URL, time: e.Time, marker: p.marker, firstSeen: e.Time, id: id, releaseAt: e.ReleaseAt, withheld: true, embedder: p}
		g.all = append(g.all, c)
		g.byURL[c.url] = append(g.byURL[c.url], c)
	}
	if chromium != "" && len(snapshots) == 0 {
		t.Errorf("seed %d: no page's rendered DOM was sealed", seed)
	}

	// Release passes: exactly at release times, a nanosecond before them, at random instants.
	var instants []time.Time
	for _, c := range g.all {
		instants = append(instants, c.releaseAt, c.releaseAt.Add(-time.Nanosecond), c.releaseAt.Add(time.Duration(rng.Int64N(int64(48*time.Hour)))))
	}
	slices.SortFunc(instants, time.Time.Compare)
	var passes []time.Time
	for _, at := range instants {
		if at.After(time.Now()) && rng.IntN(4) == 0 && (len(passes) == 0 || at.After(passes[len(passes)-1])) {
			passes = append(passes, at)
		}
	}
	last := time.Now()
	if len(passes) > 0 {
		last = passes[len(passes)-1]
	}
	passes = append(passes, last.Add(200*24*time.Hour))
	r := release.New(dir, release.Options{ShardSize: 16 << 10, Logger: testkit.QuietLogger()})
	now := time.Now()
	srv, err := lookup.Open(filepath.Join(dir, "public"), lookup.Options{Now: func() time.Time { return now }, Logger: testkit.QuietLogger()})
	if err != nil {
		t.Fatalf("lookup.Open: %v", err)
	}
	checked := 0
	for i, at := range passes {
		now = at
		if _, err := r.Pass(context.Background(), now); err != nil {
			t.Fatalf("seed %d: pass at %s: %v", seed, now.Format(time.RFC3339Nano), err)
		}
		if _, err := srv.Refresh(); err != nil {
			t.Fatalf("lookup Refresh: %v", err)
		}
		checked += checkPass(t, dir, srv, g, now, i == 0 || i == len(passes)-1)
		if t.Failed() {
			t.Fatalf("seed %d: pass at %s failed", seed, now.Format(time.RFC3339Nano))
		}
	}
	return checked
}

// checkPoliteExceptRobots fails when two requests other than /robots.txt were in flight at srv at once.
func checkPoliteExceptRobots(t *testing.T, seed uint64, srv *crawlertest.Server) {
	t.Helper()
	var prev *crawlertest.Hit
	for _, h := range srv.Log() {
		if h.Path == "/robots.txt" {
			continue
		}
		if prev != nil && !prev.Abandoned && h.Start.Before(prev.End) {
			t.Errorf("seed %d: %s: %s started before %s ended: two requests in flight", seed, srv.URL, h.Path, prev.Path)
		}
		prev = &h
	}
}
