package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/crawler/handoff"
	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/s3store"
	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/test/seaweedfs"
)

// handOffSite is three loopback origins, one per partition of 3: the page origin (node P's,
// embargoed a quarter) embeds images, a stylesheet and a page of the asset origins: A's (node
// A's, embargoed a week) and B's (node B's, no embargo, disallowing /private). A's stylesheet embeds a font of its own and
// an image of B's, so a node hands off what was handed to it.
type handOffSite struct {
	origins [3]*crawlertest.Server // by partition
	p, a, b int                    // the partitions of the page, A and B origins
	seeds   []*url.URL
}

func newHandOffSite(t *testing.T) *handOffSite {
	t.Helper()
	s := &handOffSite{}
	var handlers [3]http.Handler
	for tries := 0; s.origins[0] == nil || s.origins[1] == nil || s.origins[2] == nil; tries++ {
		if tries > 200 {
			t.Fatal("no origin of every partition among 200 loopback ports")
		}
		var o *crawlertest.Server
		slot := -1
		o = crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handlers[slot].ServeHTTP(w, r) }))
		u, _ := url.Parse(o.URL)
		if k := OriginPartition(u, 3); s.origins[k] == nil {
			slot, s.origins[k] = k, o
			t.Cleanup(o.Close)
			continue
		}
		o.Close()
	}
	s.p, s.a, s.b = 0, 1, 2
	P, A, B := s.url(s.p), s.url(s.a), s.url(s.b)
	handlers[s.p] = typed(map[string]string{
		"/robots.txt": "User-agent: *\nArchive-Embargo: q\nAllow: /\n",
		"/": fmt.Sprintf(`<a href="/two">two</a><img src="%[1]s/img.png"><link rel="stylesheet" href="%[1]s/style.css">`+
			`<img src="%[1]s/"><img src="%[2]s/pic.png"><img src="%[2]s/private/secret.png">`, A, B),
		"/two": fmt.Sprintf(`<img src="%[1]s/img.png"><img src="%[2]s/pic.png">`, A, B),
	})
	handlers[s.a] = typed(map[string]string{
		"/robots.txt": "User-agent: *\nArchive-Embargo: w\nAllow: /\n",
		"/":           "<p>A's home</p>",
		"/img.png":    "A's image",
		"/style.css":  fmt.Sprintf(`@font-face { src: url(/font.woff) } body { background: url(%s/bg.png) }`, B),
		"/font.woff":  "A's font",
	})
	handlers[s.b] = typed(map[string]string{
		"/robots.txt":         "User-agent: *\nDisallow: /private\n",
		"/":                   "<p>B's home</p>",
		"/pic.png":            "B's picture",
		"/bg.png":             "B's background",
		"/private/secret.png": "never to be fetched",
	})
	s.seeds = seedURLs(t, P+"/", A+"/", B+"/")
	return s
}

func (s *handOffSite) url(k int) string { return s.origins[k].URL }

// typed serves m with a Content-Type from each path's extension.
func typed(m map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		switch path.Ext(r.URL.Path) {
		case ".txt":
			w.Header().Set("Content-Type", "text/plain")
		case ".css":
			w.Header().Set("Content-Type", "text/css")
		case ".png":
			w.Header().Set("Content-Type", "image/png")
		case ".woff":
			w.Header().Set("Content-Type", "font/woff")
		default:
			w.Header().Set("Content-Type", "text/html")
		}
		io.WriteString(w, body)
	})
}

// sealRecorder is a node's store, keeping the captures it sealed with their entries.
type sealRecorder struct {
	Archive
	mu      sync.Mutex
	caps    []store.Capture
	entries []store.Entry
}

func (r *sealRecorder) Seal(ctx context.Context, caps []store.Capture) ([]store.Entry, error) {
	es, err := r.Archive.Seal(ctx, caps)
	if err == nil {
		r.mu.Lock()
		r.caps = append(r.caps, caps...)
		r.entries = append(r.entries, es...)
		r.mu.Unlock()
	}
	return es, err
}

func (r *sealRecorder) ReleaseAt(ctx context.Context, id string) (time.Time, bool, error) {
	return r.Archive.(releaseTimes).ReleaseAt(ctx, id)
}

// node is one partition's crawl node: its data directory and what it sealed over all its runs.
type node struct {
	k    int
	dir  string
	recs []*sealRecorder
}

// run crawls the site as node n with the hand-off through s, until ctx ends or the crawl does.
func (n *node) run(ctx context.Context, t *testing.T, site *handOffSite, s objectstore.Store) (Summary, error) {
	t.Helper()
	st, err := store.Open(n.dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := &sealRecorder{Archive: StoreArchive(st)}
	n.recs = append(n.recs, rec)
	sum, _, err := crawlInto(ctx, t, Config{
		DataDir: n.dir, Seeds: site.seeds, Delay: 0, UserAgent: fmt.Sprintf("node-%d", n.k), Partition: Partition{K: n.k, N: 3},
		HandOff: &HandOff{Store: s, Node: fmt.Sprintf("node-%d", n.k), Interval: 50 * time.Millisecond, Linger: 3 * time.Second},
	}, rec)
	return sum, err
}

// sealed returns the node's captures of its pages and requisites (robots.txt aside), by URL,
// and the index entries it made.
func (n *node) sealed() (map[string][]store.Capture, map[string]store.Entry) {
	caps, entries := map[string][]store.Capture{}, map[string]store.Entry{}
	for _, r := range n.recs {
		for i, c := range r.caps {
			if !c.Robots {
				caps[c.URL] = append(caps[c.URL], c)
				entries[c.URL] = r.entries[i]
			}
		}
	}
	return caps, entries
}

// checkHandOff checks the site's logs and the nodes' captures once every node has finished:
// every origin requested by its own node only; every requisite allowed by its robots.txt
// sealed exactly once, by its owner, with the URL and capture id of its embedding page (on
// another node), withheld until that page is public; B's private image never requested; each
// origin's period its own; no batch left in the store.
func checkHandOff(t *testing.T, site *handOffSite, nodes []*node, s objectstore.Store) {
	t.Helper()
	P, A, B := site.url(site.p), site.url(site.a), site.url(site.b)
	for k, o := range site.origins {
		for _, h := range o.Log() {
			if want := fmt.Sprintf("node-%d", k); h.UserAgent != want {
				t.Errorf("origin of partition %d requested by %s: %s", k, h.UserAgent, h.Path)
			}
			if h.Path == "/private/secret.png" {
				t.Errorf("B's disallowed image was requested")
			}
		}
	}
	type want struct {
		url, via string
		owner    int
	}
	wants := []want{
		{P + "/", "", site.p}, {P + "/two", "", site.p},
		{A + "/", "", site.a}, {A + "/img.png", P + "/", site.a}, {A + "/style.css", P + "/", site.a}, {A + "/font.woff", A + "/style.css", site.a},
		{B + "/", "", site.b}, {B + "/pic.png", P + "/", site.b}, {B + "/bg.png", A + "/style.css", site.b},
	}
	sealed := make([]map[string][]store.Capture, len(nodes))
	ids := make([]map[string]store.Entry, len(nodes))
	for k, n := range nodes {
		sealed[k], ids[k] = n.sealed()
	}
	total := 0
	for _, s := range sealed {
		total += len(s)
	}
	if total != len(wants) {
		t.Errorf("%d URLs sealed over all nodes, want %d", total, len(wants))
	}
	for _, w := range wants {
		for k := range nodes {
			got := sealed[k][w.url]
			switch {
			case k != w.owner && len(got) > 0:
				t.Errorf("%s sealed on node %d, not its owner %d", w.url, k, w.owner)
			case k == w.owner && len(got) != 1:
				t.Errorf("%s sealed %d times on its owner node %d, want once", w.url, len(got), k)
			case k == w.owner:
				c, e := got[0], ids[k][w.url]
				var via store.Entry
				if w.via != "" {
					u, _ := url.Parse(w.via)
					via = ids[OriginPartition(u, 3)][w.via]
					// Every requisite is withheld until P's home is public (docs/rules.md#d27): its
					// URL was read from that page's body, or from a stylesheet withheld as long.
					if home := ids[site.p][P+"/"]; !e.ReleaseAt.Equal(home.ReleaseAt) || e.EmbargoSource != store.SourceRequisite {
						t.Errorf("%s: released at %v (%s), want withheld until its page's %v", w.url, e.ReleaseAt, e.EmbargoSource, home.ReleaseAt)
					}
				}
				if c.RequisiteOf != w.via || c.RequisiteOfID != via.ID {
					t.Errorf("%s: requisite_of %q (%q), want %q (%q)", w.url, c.RequisiteOf, c.RequisiteOfID, w.via, via.ID)
				}
				if want := map[int]embargo.Period{site.p: embargo.Quarter, site.a: embargo.Week, site.b: embargo.None}[k]; e.Period != want {
					t.Errorf("%s: period %v", w.url, c.Period)
				}
			}
		}
	}
	left, err := s.List(context.Background(), handoff.Prefix)
	if err != nil || len(left) != 0 {
		t.Errorf("batches left in the store: %v, %v", left, err)
	}
}

// seaweedStore is a fresh bucket of a SeaweedFS server for the test (it sets the process's AWS
// environment, so tests using it are not parallel).
func seaweedStore(t *testing.T, srv *seaweedfs.Server, bucket string) objectstore.Store {
	t.Helper()
	srv.CreateBucket(t, bucket)
	loc, err := objectstore.ParseLocation("s3://" + bucket + "/public")
	if err != nil {
		t.Fatal(err)
	}
	s, err := s3store.Open(context.Background(), loc, s3store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHandOff runs the hand-off over a real SeaweedFS bucket.
func TestHandOff(t *testing.T) {
	if testing.Short() {
		t.Skip("starts SeaweedFS")
	}
	srv := seaweedfs.Start(t)
	srv.Setenv(t, seaweedfs.Writer)

	t.Run("three nodes at once", func(t *testing.T) {
		s := seaweedStore(t, srv, "handoff-together") // a bucket of the crawl nodes alone (handoff.store)
		site := newHandOffSite(t)
		nodes := []*node{{k: 0, dir: t.TempDir()}, {k: 1, dir: t.TempDir()}, {k: 2, dir: t.TempDir()}}
		var wg sync.WaitGroup
		sums := make([]Summary, 3)
		for i, n := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if sums[i], err = n.run(t.Context(), t, site, s); err != nil {
					t.Errorf("node %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		checkHandOff(t, site, nodes, s)
		// A lookup node's identity, which reads the public bucket only, cannot list the batches.
		t.Setenv("AWS_ACCESS_KEY_ID", seaweedfs.PublicKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", seaweedfs.PublicSecret)
		loc, _ := objectstore.ParseLocation("s3://handoff-together/public")
		lookup, err := s3store.Open(t.Context(), loc, s3store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lookup.List(t.Context(), handoff.Prefix); err == nil || !strings.Contains(err.Error(), "access denied") {
			t.Errorf("the lookup's identity listing the hand-off bucket: %v, want access denied", err)
		}
		// Node P handed A's three URLs (its home among them) and B's two, node A B's background;
		// A took two (its home it had), B three (the private one disallowed there).
		if sums[site.p].HandedOff != 5 || sums[site.a].HandedOff != 1 || sums[site.a].HandedIn != 2 || sums[site.b].HandedIn != 3 {
			t.Errorf("hand-off counts: %+v", sums)
		}
	})

	t.Run("writer killed after its put, readers killed before and after recording consumption", func(t *testing.T) {
		s := seaweedStore(t, srv, "handoff-kills")
		site := newHandOffSite(t)
		nodes := []*node{{k: 0, dir: t.TempDir()}, {k: 1, dir: t.TempDir()}, {k: 2, dir: t.TempDir()}}
		P := nodes[site.p]

		// The writer's first batch put lands, then the node dies: nothing after it is recorded.
		ctx, kill := context.WithCancel(t.Context())
		dying := &killing{Store: s, at: "put", kill: kill}
		if _, err := P.run(ctx, t, site, dying); !errors.Is(err, ErrInterrupted) {
			t.Fatalf("writer killed after its put: %v", err)
		}
		if !dying.dead.Load() {
			t.Fatal("the writer never put a batch")
		}
		before, _ := s.List(t.Context(), handoff.Prefix)
		if _, err := P.run(t.Context(), t, site, s); err != nil { // puts the same batch again, and the rest
			t.Fatalf("writer resumed: %v", err)
		}
		after, _ := s.List(t.Context(), handoff.Prefix)
		if len(before) == 0 || len(after) < len(before) || after[0] != before[0] {
			t.Fatalf("batches before the writer resumed %v, after %v: want the first one put again, not a second copy", before, after)
		}

		// Node A dies reading its first batch (nothing recorded), then once more after
		// recording it consumed, before deleting it; node B dies before deleting its own.
		for _, tc := range []struct {
			n  *node
			at string
		}{{nodes[site.a], "read"}, {nodes[site.a], "delete"}, {nodes[site.b], "delete"}} {
			ctx, kill := context.WithCancel(t.Context())
			dying := &killing{Store: s, at: tc.at, kill: kill}
			if _, err := tc.n.run(ctx, t, site, dying); !errors.Is(err, ErrInterrupted) || !dying.dead.Load() {
				t.Fatalf("node %d killed at %s: %v (killed: %v)", tc.n.k, tc.at, err, dying.dead.Load())
			}
		}
		for _, k := range []int{site.a, site.b} {
			if _, err := nodes[k].run(t.Context(), t, site, s); err != nil {
				t.Fatalf("node %d resumed: %v", k, err)
			}
		}
		checkHandOff(t, site, nodes, s)
	})
}

// killing is a store that dies (every call fails, the node's context is cancelled) at the
// first hand-off put, read or delete, once that call has done its work: a node killed there.
type killing struct {
	objectstore.Store
	at   string
	kill context.CancelFunc
	dead atomic.Bool
}

var errKilled = errors.New("killed")

func (k *killing) die(op, name string) bool {
	if k.dead.Load() {
		return true
	}
	if op == k.at && strings.HasPrefix(name, handoff.Prefix) {
		k.dead.Store(true)
		k.kill()
	}
	return false
}

func (k *killing) Put(ctx context.Context, name string, body io.ReadSeeker, size int64, sum string) error {
	if k.dead.Load() {
		return errKilled
	}
	err := k.Store.Put(ctx, name, body, size, sum)
	if k.die("put", name) || k.dead.Load() {
		return errKilled
	}
	return err
}

func (k *killing) Read(ctx context.Context, name string, off, n int64) (io.ReadCloser, error) {
	if k.dead.Load() {
		return nil, errKilled
	}
	r, err := k.Store.Read(ctx, name, off, n)
	if k.die("read", name) || k.dead.Load() {
		if r != nil {
			r.Close()
		}
		return nil, errKilled
	}
	return r, err
}

func (k *killing) Delete(ctx context.Context, name string) error {
	if k.dead.Load() || k.die("delete", name) || k.dead.Load() {
		return errKilled
	}
	return k.Store.Delete(ctx, name)
}

func (k *killing) List(ctx context.Context, prefix string) ([]objectstore.Object, error) {
	if k.dead.Load() {
		return nil, errKilled
	}
	return k.Store.List(ctx, prefix)
}

// TestPageReleaseBound: a page whose release time the archive cannot tell is taken to be
// public no earlier than its capture plus the longest period, never at once.
func TestPageReleaseBound(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		a    Archive
		e    outEntry
	}{
		{"an archive that does not tell", &fakeArchive{}, outEntry{Entry: handoff.Entry{RequisiteOfID: "<urn:x>"}, ViaTime: at}},
		{"a page never sealed", handedArchive{Archive: &fakeArchive{}}, outEntry{ViaTime: at}},
	} {
		got, err := pageReleaseAt(t.Context(), tc.a, tc.e)
		if want := at.Add(embargo.Quarter.Duration()); err != nil || !got.Equal(want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, want)
		}
	}
}
