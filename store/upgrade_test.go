package store

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/store/index"
)

// copyFixture copies the schema 1 archive of testdata/v1 (made by the code of commit ba5e1cf)
// into a fresh data directory.
func copyFixture(t testing.TB) string {
	t.Helper()
	src, dst := filepath.Join("testdata", "v1", "archive"), t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// upgraded opens the schema 1 index of the fixture at dir, which upgrades it (store/index tests
// the upgrade itself), checks the archive as Verify does, and returns the index's entries.
func upgraded(t *testing.T, dir string) map[string]Entry {
	t.Helper()
	path := filepath.Join(dir, layout.IndexFile)
	if _, err := index.Open(path, time.Second, testkit.QuietLogger()); err != nil {
		t.Fatal(err)
	}
	if ps, err := Verify(context.Background(), dir); err != nil || len(ps) != 0 {
		t.Errorf("verify: %v %v", ps, err)
	}
	c, err := index.Check(path)
	if err != nil {
		t.Fatal(err)
	}
	return c.Entries
}

// TestUpgradedArchive: an archive whose index was upgraded from schema 1 verifies, and sealing
// into it builds on the facts carried over.
func TestUpgradedArchive(t *testing.T) {
	t.Parallel()
	dir := copyFixture(t)
	want := upgraded(t, dir)
	// Sealing into the upgraded archive: the first-seen facts carried over make this a revisit.
	var b Entry
	for _, e := range want {
		if e.URL == "https://fixture.example/b" {
			b = e
		}
	}
	s := openTestStore(t, dir, Options{Now: func() time.Time { return t0.Add(20 * 24 * time.Hour) }})
	defer s.Close()
	c := capture("https://fixture.example/b", t0.Add(20*24*time.Hour), "<p>page b</p>", "Content-Usage: search=y")
	c.Period = embargo.None
	if e := seal(t, s, c)[0]; !e.Revisit || e.RefersTo != b.ID || !e.FirstSeen.Equal(b.Time) {
		t.Errorf("a capture of /b after the upgrade: revisit %v of %s, first seen %s; want a revisit of %s first seen %s", e.Revisit, e.RefersTo, e.FirstSeen, b.ID, b.Time)
	}
}

// TestReindexV1: Reindex rebuilds a schema 1 archive's index from its WARC files to what the
// upgrade makes of the old index: every entry, its release state carried over, and file ends.
func TestReindexV1(t *testing.T) {
	t.Parallel()
	twin, dir := copyFixture(t), copyFixture(t)
	want := upgraded(t, twin)
	if ps, err := Reindex(context.Background(), dir); err != nil || len(ps) != 0 {
		t.Fatalf("reindex: %v %v", ps, err)
	}
	got, err := index.Check(filepath.Join(dir, layout.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	wantEnds, _ := index.Check(filepath.Join(twin, layout.IndexFile))
	if !reflect.DeepEqual(got.Entries, want) || !reflect.DeepEqual(got.Ends, wantEnds.Ends) || len(got.Problems) != 0 {
		t.Errorf("reindexed\n%+v\nends %v, problems %v\nwant the upgrade's\n%+v\nends %v", got.Entries, got.Ends, got.Problems, want, wantEnds.Ends)
	}
	if ps, err := Verify(context.Background(), dir); err != nil || len(ps) != 0 {
		t.Errorf("verify: %v %v", ps, err)
	}
}
