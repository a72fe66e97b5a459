package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/layout"
)

// TestBuild builds a small archive and checks it against the sealed records and its summary.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("seals a few thousand captures")
	}
	dir := filepath.Join(t.TempDir(), "archive")
	const n, due = 4000, 20
	sum, err := build(dir, n, 700, due, 7, 30*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := store.Verify(context.Background(), dir); err != nil || len(ps) != 0 {
		t.Fatalf("the sealed side does not verify: %v %v", ps, err)
	}
	if sum.Released+sum.Tombstoned != n || sum.Tombstoned < due || sum.Revisits == 0 || sum.Due != due {
		t.Errorf("summary %+v", sum)
	}
	ix, err := store.OpenIndex(layout.Index(dir), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ix.Counts(sum.LastPass)
	if err != nil || c.Sealed != 0 || c.Backlog != 0 {
		t.Errorf("after the last pass: %+v %v", c, err)
	}
	count := func(at time.Time) int {
		k := 0
		if err := ix.Due(at, func(store.Entry) error { k++; return nil }); err != nil {
			t.Fatal(err)
		}
		return k
	}
	if got := count(sum.Now); got != due {
		t.Errorf("%d due at %s, want %d", got, sum.Now, due)
	}
	if got := count(sum.Now.Add(-time.Nanosecond)); got != due-1 {
		t.Errorf("%d due just before %s, want %d", got, sum.Now, due-1)
	}
}
