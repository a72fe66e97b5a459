package mirror_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/lookup"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/mirror"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/public/pubindex"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/test/pubtest"
)

// node is one crawl node of a test: its data directory and host.
type node struct{ name, dir, host string }

// get asks h for path: the status and body.
func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := testkit.Get(t, h, path)
	return rec.Code, rec.Body.String()
}

// Compare checks that the lookup over the mirror answers, for every URL of every node, what
// the lookup over that node's own public/ answers, file names given the node's directory, and
// streams the same record bytes; and that the mirror keeps no record locally.
func Compare(t *testing.T, view http.Handler, cache string, nodes []node, n int, now time.Time) {
	t.Helper()
	for _, nd := range nodes {
		local, err := lookup.Open(layout.Public(nd.dir), lookup.Options{Logger: pubtest.Quiet(), Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			u := url.QueryEscape(fmt.Sprintf("https://%s/page/%d", nd.host, i))
			code, want := get(t, local, "/api/v1/captures?url="+u)
			want = strings.ReplaceAll(want, `"file":"shards/`, `"file":"shards/`+nd.name+`/`)
			if gc, got := get(t, view, "/api/v1/captures?url="+u); gc != code || got != want {
				t.Errorf("%s page %d: the mirror answers %d %s\nthe node %d %s", nd.name, i, gc, got, code, want)
			}
			code, want = get(t, local, "/api/v1/record?format=warc.gz&url="+u)
			if gc, got := get(t, view, "/api/v1/record?format=warc.gz&url="+u); gc != code || got != want {
				t.Errorf("%s page %d: the record from the mirror: %d, %d bytes; from the node %d, %d bytes", nd.name, i, gc, len(got), code, len(want))
			}
		}
	}
	filepath.WalkDir(cache, func(p string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".warc.gz") {
			t.Errorf("the mirror keeps a record file: %s", p)
		}
		return nil
	})
}

func TestMirrorServesTheUnion(t *testing.T) {
	var now time.Time // the lookups' clock, moved with the passes
	t.Parallel()
	s := objectstore.NewDir(t.TempDir())
	nodes := []node{{"node-a", t.TempDir(), "a.example"}, {"node-b", t.TempDir(), "b.example"}}
	const n = 24
	for _, nd := range nodes {
		pubtest.Seal(t, nd.dir, nd.host, n, 30000) // records of about 30 KB: several windows each
	}
	cache := t.TempDir()
	var m *mirror.Mirror
	var view *lookup.Server
	for step, d := range pubtest.Days {
		for _, nd := range nodes {
			pub := func(ctx context.Context) error {
				_, err := publish.Publish(ctx, nd.dir, s, publish.Options{Node: nd.name, Logger: pubtest.Quiet()})
				return err
			}
			if _, err := pubtest.Pass(t, nd.dir, d, release.Options{Publish: pub}); err != nil {
				t.Fatal(err)
			}
		}
		now = pubtest.T0.Add(time.Duration(d)*24*time.Hour + time.Hour)
		var err error
		if step == 0 {
			if m, err = mirror.Open(context.Background(), s, cache, mirror.Options{Logger: pubtest.Quiet()}); err != nil {
				t.Fatal(err)
			}
			if view, err = lookup.New(m.FS(), lookup.Options{Logger: pubtest.Quiet(), Now: func() time.Time { return now }}); err != nil {
				t.Fatal(err)
			}
		} else {
			if changed, err := m.Refresh(context.Background()); err != nil || !changed {
				t.Fatalf("Refresh after the passes at +%dd: %v, %v", d, changed, err)
			}
			if reloaded, err := view.Refresh(); err != nil || !reloaded {
				t.Fatalf("the lookup did not reload the view: %v, %v", reloaded, err)
			}
		}
		Compare(t, view, cache, nodes, n, now)
		code, body := get(t, view, "/api/v1/record?format=payload&url="+url.QueryEscape("https://b.example/page/0"))
		if code != 200 || !strings.Contains(body, pubtest.Secret("b.example", 0)) {
			t.Errorf("+%dd: an unembargoed record from the mirror: %d %.80s", d, code, body)
		}
		code, body = get(t, view, "/api/v1/record?format=payload&url="+url.QueryEscape("https://a.example/page/3"))
		if released := d >= 91; (code == 200) != released || !released && strings.Contains(body, "SECRET") {
			t.Errorf("+%dd: a quarter's embargo from the mirror: %d %.80s", d, code, body)
		}
		if changed, err := m.Refresh(context.Background()); err != nil || changed {
			t.Errorf("a second Refresh with nothing new: %v, %v", changed, err)
		}
	}
	// A second mirror of the same store, in another cache, answers the same.
	other, err := mirror.Open(context.Background(), s, t.TempDir(), mirror.Options{Logger: pubtest.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	// Its index, rebuilt from the CDXJ files at once, counts what m's, built commit by commit, counts.
	inc, _, err1 := pubindex.ReadManifest(os.DirFS(m.Dir()))
	full, _, err2 := pubindex.ReadManifest(os.DirFS(other.Dir()))
	if err1 != nil || err2 != nil || !reflect.DeepEqual(inc.Stats, full.Stats) || inc.Generation != full.Generation || inc.Stats.Released == 0 {
		t.Errorf("the view's index built by refreshes: %+v, %v\nrebuilt at once: %+v, %v", inc, err1, full, err2)
	}
	if len(inc.Segments) < 2 {
		t.Errorf("the refreshes rebuilt the view's index instead of adding to it: %+v", inc.Segments)
	}
	now = pubtest.T0.Add(100 * 24 * time.Hour)
	a, _ := lookup.New(m.FS(), lookup.Options{Logger: pubtest.Quiet(), Now: func() time.Time { return now }})
	b, _ := lookup.New(other.FS(), lookup.Options{Logger: pubtest.Quiet(), Now: func() time.Time { return now }})
	for _, nd := range nodes {
		for i := range n {
			q := "/api/v1/captures?url=" + url.QueryEscape(fmt.Sprintf("https://%s/page/%d", nd.host, i))
			if ca, ba := get(t, a, q); true {
				if cb, bb := get(t, b, q); ca != cb || ba != bb {
					t.Errorf("two mirrors differ on %s", q)
				}
			}
		}
	}
}

// flaky is a store whose reads can be made to fail, as an unreachable bucket.
type flaky struct {
	objectstore.Store
	down atomic.Bool
}

var errDown = errors.New("store unreachable")

func (f *flaky) List(ctx context.Context, prefix string) ([]objectstore.Object, error) {
	if f.down.Load() {
		return nil, errDown
	}
	return f.Store.List(ctx, prefix)
}

func (f *flaky) Read(ctx context.Context, name string, off, n int64) (io.ReadCloser, error) {
	if f.down.Load() {
		return nil, errDown
	}
	return f.Store.Read(ctx, name, off, n)
}

// TestMirrorKeepsServingThroughFailures: an unreachable store, or an object that does not match
// its manifest, fails Refresh and leaves the view serving what it served.
func TestMirrorKeepsServingThroughFailures(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := &flaky{Store: objectstore.NewDir(root)}
	dir := t.TempDir()
	pubtest.Seal(t, dir, "a.example", 12, 100)
	pub := func(ctx context.Context) error {
		_, err := publish.Publish(ctx, dir, s, publish.Options{Node: "a", Logger: pubtest.Quiet()})
		return err
	}
	if _, err := pubtest.Pass(t, dir, 0, release.Options{Publish: pub}); err != nil {
		t.Fatal(err)
	}
	m, err := mirror.Open(context.Background(), s, t.TempDir(), mirror.Options{Logger: pubtest.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	now := pubtest.T0.Add(time.Hour)
	view, err := lookup.New(m.FS(), lookup.Options{Logger: pubtest.Quiet(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	q := "/api/v1/captures?url=" + url.QueryEscape("https://a.example/page/9") // a week's embargo: released by the second pass
	_, before := get(t, view, q)
	if _, err := pubtest.Pass(t, dir, 8, release.Options{Publish: pub}); err != nil {
		t.Fatal(err)
	}
	s.down.Store(true)
	if _, err := m.Refresh(context.Background()); !errors.Is(err, errDown) {
		t.Fatalf("Refresh with the store down: %v", err)
	}
	view.Refresh()
	if _, got := get(t, view, q); got != before {
		t.Fatalf("the view changed while the store was down:\n%s\n%s", got, before)
	}
	if !strings.Contains(before, `"state":"embargoed"`) {
		t.Fatalf("page 9 before the second pass: %s", before)
	}
	s.down.Store(false)
	// A CDXJ object that does not match its manifest is refused.
	mf, _, _ := publish.Latest(context.Background(), s, "a")
	for _, f := range mf.Files {
		if strings.HasSuffix(f.Path, ".cdxj") && strings.HasPrefix(f.Path, "shards/") {
			p := filepath.Join(root, "nodes", "a", filepath.FromSlash(f.Object))
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte("released"), []byte("RELEASED"), 1), 0o644)
		}
	}
	if _, err := m.Refresh(context.Background()); err == nil || !strings.Contains(err.Error(), "its manifest says") {
		t.Fatalf("Refresh over a tampered object: %v", err)
	}
	view.Refresh()
	if _, got := get(t, view, q); got != before {
		t.Fatal("the view changed after a refused refresh")
	}
	// Once the object is right again, the view moves on.
	for _, f := range mf.Files {
		if strings.HasSuffix(f.Path, ".cdxj") && strings.HasPrefix(f.Path, "shards/") {
			p := filepath.Join(root, "nodes", "a", filepath.FromSlash(f.Object))
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte("RELEASED"), []byte("released"), 1), 0o644)
		}
	}
	if changed, err := m.Refresh(context.Background()); err != nil || !changed {
		t.Fatalf("Refresh once the store is whole: %v, %v", changed, err)
	}
	now = pubtest.T0.Add(9 * 24 * time.Hour) // the lookup's clock, past the release
	view.Refresh()
	if _, got := get(t, view, q); !strings.Contains(got, `"state":"released"`) {
		t.Fatalf("page 9 after the second pass: %s", got)
	}
}
