package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/store/index"
	"github.com/nlnwa/gowarc/v3"
)

// copyOldForm copies the archive of testdata/oldform (written by an earlier version: JSON
// metadata records, older SURT keys) into a temporary data directory.
func copyOldForm(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "oldform", "archive"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestOldFormUpgrade: an archive sealed by an earlier version (JSON metadata records, index
// schema 1 with older SURT keys) reads as it is: opening its index upgrades it and computes every
// key anew, verify finds nothing wrong, a capture sealed now joins it in the new form, and
// verify --reindex (Reindex) over both forms gives the same entries.
func TestOldFormUpgrade(t *testing.T) {
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
	if ps, err := Verify(ctx, dir); err != nil || len(ps) != 0 {
		t.Fatalf("verify of the old archive: %v %v", ps, err)
	}
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
	if err != nil || len(before) != len(ids) {
		t.Fatalf("%d of %d entries: %v", len(before), len(ids), err)
	}
	for _, e := range before {
		if key, _ := surt.Key(e.URL); e.SURT != key {
			t.Errorf("%s: SURT %q after the upgrade, want %q", e.URL, e.SURT, key)
		}
	}
	var byURL []string
	key, _ := surt.Key("http://127.0.0.1:8080/style.css")
	if err := ix.ByURL(key, func(e Entry) error { byURL = append(byURL, e.ID); return nil }); err != nil || len(byURL) != 2 {
		t.Errorf("ByURL(%s) = %v, %v; want the capture and its revisit", key, byURL, err)
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
		if diff := entryDiff(b, a); len(diff) > 0 || a.State != b.State || a.Public != b.Public {
			t.Errorf("%s: reindexed entry differs in %v (state %s→%s)", b.URL, diff, b.State, a.State)
		}
		// The schema 1 entries kept no embargo source; reindexing reads it from the metadata record.
		want := ""
		if a.URL == "http://127.0.0.1:8080/style.css" && !a.Revisit {
			want = "robots.txt"
		}
		if b.EmbargoSource != "" || a.EmbargoSource != want {
			t.Errorf("%s: embargo source %q upgraded, %q reindexed; want none, then robots.txt for the requisite only", a.URL, b.EmbargoSource, a.EmbargoSource)
		}
	}
	if ps, err := Verify(ctx, dir); err != nil || len(ps) != 0 {
		t.Errorf("verify after reindex: %v %v", ps, err)
	}
}

// TestVerifyOlderKeys: entries keyed by a SURT form other than surt.Key's (an index written by a
// version whose keys differed) are one line of verify, which says to reindex; Reindex recomputes them.
func TestVerifyOlderKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	all := sealMixed(t, dir)
	ix, err := OpenIndex(filepath.Join(dir, layout.IndexFile), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Update(func(tx *index.Tx) error {
		for _, id := range []string{all[2].ID, all[3].ID} {
			e, _, _ := tx.Get(id)
			if err := tx.Delete(e); err != nil {
				return err
			}
			e.SURT = strings.Replace(e.SURT, "com,example)", "example.com)", 1) // a key of another form
			if err := tx.Put([]Entry{e}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ps, err := Verify(context.Background(), dir)
	if err != nil || len(ps) != 1 || !strings.Contains(ps[0].What, "2 captures are keyed by an older SURT form") ||
		!strings.Contains(ps[0].What, "run archivectl verify --reindex") {
		t.Fatalf("verify: %v %v; want the one line about the keys", ps, err)
	}
	if ps, err := Reindex(context.Background(), dir); err != nil || len(ps) != 0 {
		t.Fatalf("reindex: %v %v", ps, err)
	}
	if ps, err := Verify(context.Background(), dir); err != nil || len(ps) != 0 {
		t.Errorf("verify after reindex: %v %v", ps, err)
	}
}
