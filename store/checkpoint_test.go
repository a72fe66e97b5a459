package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
)

// TestCheckpoint: Checkpoint closes the open file (the next batch starts another) and copies
// an index that opens with every entry sealed so far, pointing into the files it names, all
// closed; a copy restored with those files in another directory verifies clean.
func TestCheckpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStore(t, dir, Options{})
	es := seal(t, s, capture("http://example.com/a", t0, "a"), capture("http://example.com/b", t0, "b"))
	copyDir := t.TempDir()
	f, err := os.Create(layout.Index(copyDir))
	if err != nil {
		t.Fatal(err)
	}
	files, err := s.Checkpoint(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0] != es[0].Response.File {
		t.Fatalf("Checkpoint named %v, want the one file %s", files, es[0].Response.File)
	}
	if _, err := os.Stat(filepath.Join(layout.Sealed(dir), files[0])); err != nil {
		t.Fatalf("the file is not closed under its name: %v", err)
	}
	later := seal(t, s, capture("http://example.com/c", t0.Add(time.Second), "c"))
	if later[0].Response.File == files[0] {
		t.Errorf("the batch after a checkpoint went on in the closed file %s", files[0])
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(layout.Sealed(copyDir), 0o700)
	b, _ := os.ReadFile(filepath.Join(layout.Sealed(dir), files[0]))
	os.WriteFile(filepath.Join(layout.Sealed(copyDir), files[0]), b, 0o600)
	ix, err := OpenIndex(layout.Index(copyDir), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if _, ok, err := ix.Get(e.ID); !ok || err != nil {
			t.Errorf("the copy lacks %s (%v)", e.URL, err)
		}
	}
	if _, ok, _ := ix.Get(later[0].ID); ok {
		t.Errorf("the copy holds %s, sealed after it", later[0].URL)
	}
	problems, err := Verify(context.Background(), copyDir)
	if err != nil || len(problems) > 0 {
		t.Errorf("verify of the copy: %v %v", problems, err)
	}
	if _, err := s.Checkpoint(&strings.Builder{}); err == nil {
		t.Error("Checkpoint after Close succeeded")
	}
}
