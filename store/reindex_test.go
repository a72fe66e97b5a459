package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/store/index"
)

// sealMixed fills a store with captures of every kind: periods, Last-Modified, robots.txt,
// revisits (also across batches) and rotation, then moves some through release states.
func sealMixed(t *testing.T, dir string) []Entry {
	t.Helper()
	s := openTestStore(t, dir, Options{MaxFileSize: 16 << 10})
	var all []Entry
	periods := []embargo.Period{embargo.None, embargo.Week, embargo.Month, embargo.Quarter}
	for b := range 6 {
		var caps []Capture
		for i := range 5 {
			at := t0.Add(time.Duration(b)*24*time.Hour + time.Duration(i)*time.Minute)
			c := capture(fmt.Sprintf("https://example.com/p%d", i), at, fmt.Sprintf("page %d version %d", i, b%2))
			if i == 3 {
				c = capture("https://example.com/lm", at, "fixed", "Last-Modified: Sun, 01 Feb 2026 00:00:00 GMT")
			}
			c.Period = periods[(b+i)%4]
			c.Usage, c.UsageRobots = []string{"train-ai=n"}, []string{"train-ai=n"}
			caps = append(caps, c)
		}
		robots := capture("https://example.com/robots.txt", t0.Add(time.Duration(b)*time.Hour), "User-agent: *\nArchive-Embargo: q\n")
		robots.Robots = true
		caps = append(caps, robots)
		all = append(all, seal(t, s, caps...)...)
	}
	ix := s.Index()
	if err := ix.Mark([]Mark{{ID: all[0].ID, State: Released, Public: Location{File: "shard-1.warc.gz", Offset: 10, Length: 20}}, {ID: all[1].ID, State: Tombstoned}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	revisits := 0
	for _, e := range all {
		if e.Revisit {
			revisits++
		}
	}
	if revisits == 0 {
		t.Fatal("the fixture has no revisit")
	}
	return all
}

// snapshot is everything observable through the Index API at a few instants.
func snapshot(t *testing.T, ix *Index, ids []string) string {
	t.Helper()
	var out []any
	for _, now := range []time.Time{t0, t0.Add(8 * 24 * time.Hour), t0.Add(40 * 24 * time.Hour), t0.Add(200 * 24 * time.Hour)} {
		out = append(out, collect(t, func(fn func(Entry) error) error { return ix.Due(now, fn) }))
		out = append(out, collect(t, func(fn func(Entry) error) error { return ix.Embargoed(now, fn) }))
		n, err := ix.Counts(now)
		if err != nil {
			t.Fatal(err)
		}
		next, _, _ := ix.Next(now)
		out = append(out, n, next)
	}
	for _, id := range ids {
		e, ok, err := ix.Get(id)
		if err != nil || !ok {
			t.Fatalf("get %s: %v %v", id, ok, err)
		}
		out = append(out, e)
	}
	out = append(out, collect(t, func(fn func(Entry) error) error { return ix.ByURL("com,example)/p1", fn) }))
	b, _ := json.MarshalIndent(out, "", " ")
	return string(b)
}

func TestReindex(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		dropIndex bool
	}{
		{"over the old index: states carried over", false},
		{"index lost: from the WARCs alone", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			all := sealMixed(t, dir)
			ids := make([]string, len(all))
			for i, e := range all {
				ids[i] = e.ID
			}
			path := filepath.Join(dir, layout.IndexFile)
			if tc.dropIndex {
				// Without the old index the release states are gone: compare with a twin whose
				// states were never moved.
				ix, _ := OpenIndex(path, time.Second)
				if err := ix.Update(func(tx *index.Tx) error {
					for _, id := range ids[:2] {
						e, _, _ := tx.Get(id)
						if err := tx.Delete(e); err != nil {
							return err
						}
						e.State, e.Public = Sealed, Location{}
						if err := tx.Put([]Entry{e}); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			ix, _ := OpenIndex(path, time.Second)
			before := snapshot(t, ix, ids)
			if tc.dropIndex {
				os.Remove(path)
			}
			ps, err := Reindex(context.Background(), dir)
			if err != nil || len(ps) != 0 {
				t.Fatalf("reindex: %v %v", ps, err)
			}
			after := snapshot(t, ix, ids)
			if before != after {
				t.Errorf("the rebuilt index differs:\n--- before\n%s\n--- after\n%s", before, after)
			}
			if ps, err := Verify(context.Background(), dir); err != nil || len(ps) != 0 {
				t.Errorf("verify after reindex: %v %v", ps, err)
			}
		})
	}
}

func TestReindexTornOpenFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStore(t, dir, Options{})
	es := seal(t, s, capture("https://example.com/1", t0, "one"), capture("https://example.com/2", t0, "two"))
	abandon(s)
	open := openFiles(t, dir)
	// The last capture's metadata record is torn.
	if err := os.Truncate(open[0], es[1].Metadata.Offset+5); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, layout.IndexFile))
	ps, err := Reindex(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 {
		t.Error("reindex reported nothing about a torn file")
	}
	ix, _ := OpenIndex(filepath.Join(dir, layout.IndexFile), time.Second)
	got := collect(t, func(fn func(Entry) error) error { return ix.Due(t0.Add(time.Hour*24*365), fn) })
	if !slices.Equal(got, []string{es[0].ID}) {
		t.Errorf("indexed %v, want only the whole capture %s", got, es[0].ID)
	}
	// The next writer cuts the torn tail off, and everything verifies.
	s = openTestStore(t, dir, Options{})
	s.Close()
	if ps, err := Verify(context.Background(), dir); err != nil || len(ps) != 0 {
		t.Errorf("verify: %v %v", ps, err)
	}
}
