package release

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// readLines reads the CDXJ beside every public WARC file: file (relative to public/) → its lines.
func readLines(t *testing.T, dir string) map[string][]public.Line {
	t.Helper()
	fsys := os.DirFS(layout.Public(dir))
	names, err := public.CDXJFiles(fsys)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]public.Line{}
	for _, name := range names {
		warc := strings.TrimSuffix(name, public.CDXJExt) + public.WARCExt
		if err := public.ReadCDXJ(fsys, name, func(l public.Line) error {
			out[warc] = append(out[warc], l)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestLinesStateWhatTheyAre: a CDXJ line's filename is its WARC file's name, which public.PathOf
// finds again; a shard's lines are released, a tombstone file's lines say "tombstone"; and when
// every capture has been released, no public line says that anything is embargoed.
func TestLinesStateWhatTheyAre(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 24)
	r := newTestReleaser(a.dir)
	for _, days := range []int{0, 8, 32, 91} {
		mustPass(t, r, t0.Add(time.Duration(days)*24*time.Hour+time.Hour))
	}
	mustVerify(t, a.dir)
	tombstones := 0
	for warc, lines := range readLines(t, a.dir) {
		shard := strings.HasPrefix(warc, layout.ShardsDir+"/")
		for _, l := range lines {
			if l.Filename != path.Base(warc) || public.PathOf(l.Filename) != warc {
				t.Errorf("%s: a line names %q (found at %q)", warc, l.Filename, public.PathOf(l.Filename))
			}
			switch {
			case shard && l.State != public.StateReleased:
				t.Errorf("%s: a line says %q", warc, l.State)
			case !shard && l.State != public.StateTombstone:
				t.Errorf("%s: a tombstone line says %q, want %q", warc, l.State, public.StateTombstone)
			case !shard:
				tombstones++
			}
		}
	}
	released, _ := publicLines(t, a.dir)
	if tombstones == 0 || len(released) != len(a.entries) {
		t.Errorf("%d tombstone lines, %d of %d captures released: the test saw no tombstone or not every release", tombstones, len(released), len(a.entries))
	}
}

// copyOldForm copies store/testdata/oldform's archive (written by an earlier version: JSON
// tombstones saying "embargoed", shards/ filenames, older SURT keys) into a temporary directory.
func copyOldForm(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "store", "testdata", "oldform", "archive"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestOldFormPublicSide: the public side of an earlier version, once its public index is built
// (as archivectl reindex-public or the next pass builds it), verifies as it is; a pass adds files
// in the new forms beside it, and both verify; an index rebuilt from the sealed files alone gets
// every release state and public location back from both forms of lines.
func TestOldFormPublicSide(t *testing.T) {
	t.Parallel()
	dir := copyOldForm(t)
	if _, err := RebuildIndex(context.Background(), dir, Options{Logger: testkit.QuietLogger()}); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, dir)
	r := newTestReleaser(dir)
	if s := mustPass(t, r, time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)); s.Released != 1 || s.Tombstoned != 0 {
		t.Fatalf("the pass after the old ones: %+v, want /about released", s)
	}
	mustVerify(t, dir)
	forms := map[string]int{}
	for _, lines := range readLines(t, dir) {
		for _, l := range lines {
			forms[l.State+" "+strings.SplitN(l.Filename, "-", 2)[0]]++
			if key, _ := surt.Key(l.URL); !strings.Contains(l.Filename, "/") && l.SURT != key {
				t.Errorf("a new line keyed %q, want %q (surt.Key now, whatever index.db holds)", l.SURT, key)
			}
		}
	}
	want := map[string]int{"released shards/PUBLIC": 4, "embargoed tombstones/TOMBSTONES": 2, "released PUBLIC": 1}
	if len(forms) != len(want) || forms["released PUBLIC"] != 1 || forms["released shards/PUBLIC"] != 4 || forms["embargoed tombstones/TOMBSTONES"] != 2 {
		t.Errorf("lines by state and filename form: %v, want %v", forms, want)
	}

	ix, err := store.OpenIndex(layout.Index(dir), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, lines := range readLines(t, dir) {
		for _, l := range lines {
			ids = append(ids, l.ID)
		}
	}
	before, err := ix.GetMany(ids)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(layout.Index(dir)); err != nil {
		t.Fatal(err)
	}
	if ps, err := store.Reindex(context.Background(), dir); err != nil || len(ps) != 0 {
		t.Fatalf("reindex: %v %v", ps, err)
	}
	if n, err := Restore(context.Background(), dir, time.Second); err != nil || n != 5 {
		t.Fatalf("restore: %d, %v; want 5 states", n, err)
	}
	after, err := ix.GetMany(ids)
	if err != nil {
		t.Fatal(err)
	}
	for id, b := range before {
		if a := after[id]; a.State != b.State || a.Public != b.Public {
			t.Errorf("%s: %s at %+v, restored %s at %+v", b.URL, b.State, b.Public, a.State, a.Public)
		}
	}
	mustVerify(t, dir)
}
