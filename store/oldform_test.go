package store

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/store/layout"
	"github.com/archivectl/archivectl/store/surt"
	"github.com/nlnwa/gowarc/v3"
)

// copyOldForm copies the archive of testdata/oldform (written by an earlier version: JSON
// metadata records, older SURT keys) into a temporary data directory.
func copyOldForm(t *testing.T) string {
	t.Helper()
	src := filepath.Join("testdata", "oldform", "archive")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestOldFormReindex: an archive sealed before reads as it is (its JSON metadata records parse,
// its digests verify), verify names its older SURT keys in one line, and verify --reindex
// (Reindex) recomputes them and keeps every other fact and every release state, also with a
// capture sealed since in the new form.
func TestOldFormReindex(t *testing.T) {
	t.Parallel()
	dir := copyOldForm(t)
	ctx := context.Background()
	var ids []string
	files, _ := filepath.Glob(filepath.Join(dir, layout.SealedDir, "*.warc.gz"))
	for _, f := range files {
		if err := ScanFile(f, func(_ Location, rec gowarc.WarcRecord) error {
			if rec.Type() == gowarc.Metadata && rec.WarcHeader().Get(gowarc.ContentType) != "application/json" {
				t.Errorf("the fixture holds a metadata record of type %q, not an old one", rec.WarcHeader().Get(gowarc.ContentType))
			}
			if rec.Type() == gowarc.Response || rec.Type() == gowarc.Revisit {
				ids = append(ids, IDRef(rec.RecordId()))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(ids) != 5 {
		t.Fatalf("the fixture holds %d captures, want 5", len(ids))
	}
	ps, err := Verify(ctx, dir)
	if err != nil || len(ps) != 1 || !strings.Contains(ps[0].What, "5 captures are keyed by an older SURT form") ||
		!strings.Contains(ps[0].What, "archivectl verify --reindex") {
		t.Fatalf("verify of the old archive: %v %v; want the one line about its keys", ps, err)
	}
	// A capture sealed now joins it in the new form: reindex reads both forms side by side.
	s := openTestStore(t, dir, Options{})
	es := seal(t, s, capture("http://127.0.0.1:8080/new", t0.Add(10*24*time.Hour), "new"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if meta, err := ReadAt(filepath.Join(dir, layout.SealedDir), es[0].Metadata); err != nil || meta.WarcHeader().Get(gowarc.ContentType) != gowarc.ApplicationWarcFields {
		t.Fatalf("the new capture's metadata record: %v", err)
	}
	ids = append(ids, es[0].ID)
	ix, err := OpenIndex(filepath.Join(dir, layout.IndexFile), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	before, err := ix.GetMany(ids)
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := Reindex(ctx, dir); err != nil || len(ps) != 0 {
		t.Fatalf("reindex: %v %v", ps, err)
	}
	after, err := ix.GetMany(ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		b, a := before[id], after[id]
		key, _ := surt.Key(b.URL)
		if a.SURT != key || (b.SURT == key) != (id == es[0].ID) {
			t.Errorf("%s: SURT %q before, %q after; want the old form, then %q", b.URL, b.SURT, a.SURT, key)
		}
		a.SURT = b.SURT
		if diff := entryDiff(b, a); len(diff) > 0 || a.State != b.State || a.Public != b.Public {
			t.Errorf("%s: reindexed entry differs in %v (state %s→%s)", b.URL, diff, b.State, a.State)
		}
	}
	var byURL []string
	key, _ := surt.Key("http://127.0.0.1:8080/style.css")
	if err := ix.ByURL(key, func(e Entry) error { byURL = append(byURL, e.ID); return nil }); err != nil || len(byURL) != 2 {
		t.Errorf("ByURL(%s) = %v, %v; want the capture and its revisit", key, byURL, err)
	}
	if ps, err := Verify(ctx, dir); err != nil || len(ps) != 0 {
		t.Errorf("verify after reindex: %v %v", ps, err)
	}
}
