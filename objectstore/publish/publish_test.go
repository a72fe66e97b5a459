package publish_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/objectstore/storetest"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/test/pubtest"
)

func publishTo(s objectstore.Store, dir, node string) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := publish.Publish(ctx, dir, s, publish.Options{Node: node, Logger: pubtest.Quiet()})
		return err
	}
}

// checkMirrors checks that the node's latest generation in s is the data directory's public/,
// byte for byte: every file (the release log from its parts) and state.json.
func checkMirrors(t *testing.T, s objectstore.Store, dir, node string) *publish.Manifest {
	t.Helper()
	ctx := context.Background()
	m, found, err := publish.Latest(ctx, s, node)
	if err != nil || !found {
		t.Fatalf("Latest(%s) = %v, %v", node, found, err)
	}
	pub := layout.Public(dir)
	status, _ := os.ReadFile(layout.State(dir))
	if m.Status != string(status) {
		t.Errorf("manifest status %s, state.json %s", m.Status, status)
	}
	local := map[string]bool{}
	filepath.WalkDir(pub, func(p string, e fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(pub, p)
		if err == nil && e.Type().IsRegular() && rel != layout.StateFile && rel != layout.ReleaseLogFile && !strings.HasSuffix(rel, ".tmp") {
			local[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	for _, f := range m.Files {
		if !local[f.Path] {
			t.Errorf("the manifest lists %s, public/ has no such file", f.Path)
			continue
		}
		delete(local, f.Path)
		want, _ := os.ReadFile(filepath.Join(pub, f.Path))
		if got := storetest.ReadAll(t, s, publish.NodePrefix(node)+f.Object, 0, -1); !bytes.Equal(got, want) {
			t.Errorf("%s: the store's %s differs from public/ (%d bytes, want %d)", f.Path, f.Object, len(got), len(want))
		}
	}
	for p := range local {
		t.Errorf("public/%s is not in generation %d", p, m.Generation)
	}
	var log []byte
	for _, part := range m.Log {
		log = append(log, storetest.ReadAll(t, s, publish.NodePrefix(node)+part.Object, 0, -1)...)
	}
	if want, _ := os.ReadFile(layout.ReleaseLog(dir)); !bytes.Equal(log, want) {
		t.Errorf("the log's parts hold %d bytes, release-log.jsonl %d", len(log), len(want))
	}
	if problems, err := publish.Verify(ctx, s, true); err != nil || len(problems) > 0 {
		t.Errorf("Verify: %v %v", problems, err)
	}
	return m
}

// garbage lists the node's objects that no kept manifest lists.
func garbage(t *testing.T, s objectstore.Store, node string) []string {
	t.Helper()
	ctx := context.Background()
	gens, err := publish.Committed(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]bool{}
	for _, g := range gens[node] {
		m, err := publish.ReadManifest(ctx, s, node, g)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range slices.Concat(m.Files, m.Log) {
			live[publish.NodePrefix(node)+f.Object] = true
		}
	}
	objs, err := s.List(ctx, publish.NodePrefix(node))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		if !live[o.Name] {
			out = append(out, o.Name)
		}
	}
	return out
}

func TestPublishGenerations(t *testing.T) {
	t.Parallel()
	dir, s := t.TempDir(), objectstore.NewDir(t.TempDir())
	pubtest.Seal(t, dir, "a.example", 40, 2000)
	var gens []int64
	for _, d := range pubtest.Days {
		if _, err := pubtest.Pass(t, dir, d, release.Options{Publish: publishTo(s, dir, "node-a")}); err != nil {
			t.Fatalf("pass at +%dd: %v", d, err)
		}
		m := checkMirrors(t, s, dir, "node-a")
		gens = append(gens, m.Generation)
		if g := garbage(t, s, "node-a"); len(g) > 0 {
			t.Errorf("after the pass at +%dd: garbage %v", d, g)
		}
	}
	committed, _ := publish.Committed(context.Background(), s)
	if got := committed["node-a"]; len(got) != publish.Keep || got[len(got)-1] != gens[len(gens)-1] {
		t.Errorf("manifests kept: %v, want the last %d of %v", got, publish.Keep, gens)
	}
	res, err := publish.Publish(context.Background(), dir, s, publish.Options{Node: "node-a", Logger: pubtest.Quiet()})
	if err != nil || res.Committed || res.Uploaded != 0 || res.Generation != gens[len(gens)-1] {
		t.Errorf("a publish with nothing new: %+v, %v; want no commit and no upload", res, err)
	}
}

func TestPublishRefusesAnotherDataDirectory(t *testing.T) {
	t.Parallel()
	s := objectstore.NewDir(t.TempDir())
	a, b := t.TempDir(), t.TempDir()
	pubtest.Seal(t, a, "a.example", 8, 100)
	pubtest.Seal(t, b, "b.example", 8, 100)
	if _, err := pubtest.Pass(t, a, 0, release.Options{Publish: publishTo(s, a, "same")}); err != nil {
		t.Fatal(err)
	}
	_, err := pubtest.Pass(t, b, 0, release.Options{Publish: publishTo(s, b, "same")})
	if err == nil || !strings.Contains(err.Error(), "published by another data directory") {
		t.Fatalf("a second data directory under the same node name: %v", err)
	}
	checkMirrors(t, s, a, "same")
	if _, err := pubtest.Pass(t, b, 0, release.Options{Publish: publishTo(s, b, "other")}); err != nil {
		t.Fatalf("under its own name: %v", err)
	}
	checkMirrors(t, s, b, "other")
}

func TestPublishBadNode(t *testing.T) {
	t.Parallel()
	for _, node := range []string{"", "Node", "a/b", "-a", strings.Repeat("a", 64), "a.b"} {
		_, err := publish.Publish(context.Background(), t.TempDir(), objectstore.NewDir(t.TempDir()), publish.Options{Node: node})
		if err == nil || !strings.Contains(err.Error(), "node name") {
			t.Errorf("node %q: %v", node, err)
		}
	}
}

// failing is a store whose n-th write (Put or Delete) and every later one fail, as a store
// that goes away mid-upload.
type failing struct {
	objectstore.Store
	left atomic.Int64
}

var errInjected = errors.New("injected store failure")

func (f *failing) fail() bool { return f.left.Add(-1) < 0 }

func (f *failing) Put(ctx context.Context, name string, body io.ReadSeeker, size int64, sum string) error {
	if f.fail() {
		return errInjected
	}
	return f.Store.Put(ctx, name, body, size, sum)
}

func (f *failing) Delete(ctx context.Context, name string) error {
	if f.fail() {
		return errInjected
	}
	return f.Store.Delete(ctx, name)
}

// TestPublishFailsAtEveryWrite makes the store fail at each write of a publish in turn: the
// previous generation stays the latest (or the new one, when only cleaning failed), every
// manifest's objects are there, and the next publish commits with nothing left over.
func TestPublishFailsAtEveryWrite(t *testing.T) {
	t.Parallel()
	dir, root := t.TempDir(), t.TempDir()
	healthy := objectstore.NewDir(root)
	pubtest.Seal(t, dir, "a.example", 60, 3000)
	if _, err := pubtest.Pass(t, dir, 0, release.Options{Publish: publishTo(healthy, dir, "n")}); err != nil {
		t.Fatal(err)
	}
	before := checkMirrors(t, healthy, dir, "n")
	for _, d := range pubtest.Days[1:] {
		// The pass itself, publishing nothing: how many writes does a full publish take?
		counter := &failing{Store: healthy}
		counter.left.Store(1 << 40)
		if _, err := pubtest.Pass(t, dir, d, release.Options{}); err != nil {
			t.Fatal(err)
		}
		snapshot := copyDir(t, root)
		if _, err := publish.Publish(context.Background(), dir, counter, publish.Options{Node: "n", Logger: pubtest.Quiet()}); err != nil {
			t.Fatal(err)
		}
		writes := int(1<<40 - counter.left.Load())
		after := checkMirrors(t, healthy, dir, "n")
		for k := range writes {
			t.Run(fmt.Sprintf("+%dd/write-%d-of-%d", d, k+1, writes), func(t *testing.T) {
				r := t.TempDir()
				restore(t, snapshot, r)
				s := &failing{Store: objectstore.NewDir(r)}
				s.left.Store(int64(k))
				_, err := publish.Publish(context.Background(), dir, s, publish.Options{Node: "n", Logger: pubtest.Quiet()})
				m, _, lerr := publish.Latest(context.Background(), s.Store, "n")
				switch {
				case lerr != nil:
					t.Fatalf("Latest: %v", lerr)
				case err != nil && !errors.Is(err, errInjected):
					t.Fatalf("Publish: %v, want the injected failure", err)
				case err != nil && m.Generation != before.Generation:
					t.Fatalf("a failed publish left generation %d visible, want %d", m.Generation, before.Generation)
				case err == nil && m.Generation != after.Generation:
					t.Fatalf("a publish whose cleaning failed left generation %d, want %d", m.Generation, after.Generation)
				}
				if problems, err := publish.Verify(context.Background(), s.Store, true); err != nil || len(problems) > 0 {
					t.Fatalf("after the failure: %v %v", problems, err)
				}
				s.left.Store(1 << 40)
				if _, err := publish.Publish(context.Background(), dir, s, publish.Options{Node: "n", Logger: pubtest.Quiet()}); err != nil {
					t.Fatalf("the next publish: %v", err)
				}
				checkMirrors(t, s.Store, dir, "n")
				if g := garbage(t, s.Store, "n"); len(g) > 0 {
					t.Fatalf("left after the next publish: %v", g)
				}
			})
		}
		before = after
	}
}

// copyDir reads every file under root.
func copyDir(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			b, rerr := os.ReadFile(p)
			if rerr != nil {
				t.Fatal(rerr)
			}
			rel, _ := filepath.Rel(root, p)
			out[rel] = b
		}
		return nil
	})
	return out
}

// restore writes files under root.
func restore(t *testing.T, files map[string][]byte, root string) {
	t.Helper()
	for rel, b := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
