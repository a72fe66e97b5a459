package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
)

// sealPeriods seals one capture per period, one second apart, and returns the entries.
func sealPeriods(t *testing.T, s *Store, periods ...embargo.Period) []Entry {
	t.Helper()
	var caps []Capture
	for i, p := range periods {
		c := capture(fmt.Sprintf("https://example.com/%d", i), t0.Add(time.Duration(i)*time.Second), fmt.Sprintf("body %d", i))
		c.Period = p
		caps = append(caps, c)
	}
	return seal(t, s, caps...)
}

func collect(t *testing.T, scan func(func(Entry) error) error) []string {
	t.Helper()
	var ids []string
	if err := scan(func(e Entry) error { ids = append(ids, e.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestIndexScans(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir(), Options{})
	defer s.Close()
	ix := s.Index()
	// periods: quarter, none, week, month, none → release order: none#1, none#4, week#2, month#3, quarter#0
	es := sealPeriods(t, s, embargo.Quarter, embargo.None, embargo.Week, embargo.Month, embargo.None)
	id := func(i ...int) []string {
		var out []string
		for _, j := range i {
			out = append(out, es[j].ID)
		}
		return out
	}
	day := 24 * time.Hour
	cases := []struct {
		name      string
		now       time.Time
		due       []string
		embargoed []string
		next      time.Time
	}{
		{"before anything", t0.Add(-time.Second), nil, id(1, 4, 2, 3, 0), es[1].ReleaseAt},
		{"at capture: unembargoed due", t0.Add(4 * time.Second), id(1, 4), id(2, 3, 0), es[2].ReleaseAt},
		{"exactly at a release time (T184)", es[2].ReleaseAt, id(1, 4, 2), id(3, 0), es[3].ReleaseAt},
		{"one ns before", es[2].ReleaseAt.Add(-time.Nanosecond), id(1, 4), id(2, 3, 0), es[2].ReleaseAt},
		{"after a month", t0.Add(32 * day), id(1, 4, 2, 3), id(0), es[0].ReleaseAt},
		{"after everything", t0.Add(100 * day), id(1, 4, 2, 3, 0), nil, time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := collect(t, func(fn func(Entry) error) error { return ix.Due(tc.now, fn) }); !slices.Equal(got, tc.due) {
				t.Errorf("due %v, want %v", got, tc.due)
			}
			if got := collect(t, func(fn func(Entry) error) error { return ix.Embargoed(tc.now, fn) }); !slices.Equal(got, tc.embargoed) {
				t.Errorf("embargoed %v, want %v", got, tc.embargoed)
			}
			next, ok, err := ix.Next(tc.now)
			if err != nil || ok != !tc.next.IsZero() || !next.Equal(tc.next) {
				t.Errorf("next %s %v %v, want %s", next, ok, err, tc.next)
			}
			n, err := ix.Counts(tc.now)
			if err != nil || n.Backlog != len(tc.due) || n.Sealed != 5 {
				t.Errorf("counts %+v %v, want backlog %d", n, err, len(tc.due))
			}
		})
	}
}

func TestIndexMark(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir(), Options{})
	defer s.Close()
	ix := s.Index()
	es := sealPeriods(t, s, embargo.None, embargo.Week, embargo.Quarter)
	now := t0.Add(time.Hour)
	// A release pass: release what is due, tombstone the rest, marking from inside the callbacks.
	pass := func(now time.Time) {
		t.Helper()
		if err := ix.Due(now, func(e Entry) error {
			return ix.Mark([]Mark{{ID: e.ID, State: Released, Public: Location{File: "shard.warc.gz", Offset: 1, Length: 2}}})
		}); err != nil {
			t.Fatal(err)
		}
		if err := ix.Embargoed(now, func(e Entry) error {
			return ix.Mark([]Mark{{ID: e.ID, State: Tombstoned, Public: Location{File: "tombstones.warc.gz", Length: 9}}})
		}); err != nil {
			t.Fatal(err)
		}
	}
	tombstoned := func() []string {
		return collect(t, func(fn func(Entry) error) error { return ix.Tombstoned(fn) })
	}
	if got := tombstoned(); got != nil {
		t.Errorf("tombstoned before any pass: %v", got)
	}
	pass(now)
	pass(now) // idempotent
	if got := tombstoned(); !slices.Equal(got, []string{es[1].ID, es[2].ID}) {
		t.Errorf("tombstoned after the first pass: %v, want %v", got, []string{es[1].ID, es[2].ID})
	}
	n, _ := ix.Counts(now)
	if n != (Counts{Sealed: 0, Tombstoned: 2, Released: 1, Backlog: 0}) {
		t.Errorf("after first pass %+v", n)
	}
	e, ok, err := ix.Get(es[0].ID)
	if err != nil || !ok || e.State != Released || e.Public.File != "shard.warc.gz" {
		t.Errorf("get released: %+v %v %v", e, ok, err)
	}
	later := t0.Add(8 * 24 * time.Hour)
	if got := collect(t, func(fn func(Entry) error) error { return ix.Due(later, fn) }); !slices.Equal(got, []string{es[1].ID}) {
		t.Errorf("a tombstoned capture that became due is not due: %v", got)
	}
	pass(later)
	if got := tombstoned(); !slices.Equal(got, []string{es[2].ID}) {
		t.Errorf("tombstoned after the second pass: %v, want %v", got, []string{es[2].ID})
	}
	n, _ = ix.Counts(later)
	if n != (Counts{Tombstoned: 1, Released: 2}) {
		t.Errorf("after second pass %+v", n)
	}
	if err := ix.Mark([]Mark{{ID: es[0].ID, State: Sealed}}); err == nil {
		t.Error("a released capture went back to sealed")
	}
	if err := ix.Mark([]Mark{{ID: es[2].ID, State: Released}, {ID: "<urn:uuid:nope>", State: Released}}); err == nil {
		t.Error("marking an unknown id succeeded")
	}
	if e, _, _ := ix.Get(es[2].ID); e.State != Tombstoned {
		t.Error("a failed Mark call changed part of its batch")
	}
	if _, ok, err := ix.Get("<urn:uuid:nope>"); ok || err != nil {
		t.Errorf("get unknown: %v %v", ok, err)
	}
}

func TestIndexByURL(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir(), Options{})
	defer s.Close()
	a1 := seal(t, s, capture("https://example.com/a", t0, "one"))[0]
	seal(t, s, capture("https://example.com/ab", t0, "other"))
	a2 := seal(t, s, capture("http://www.example.com/a/", t0.Add(time.Hour), "two"))[0]
	got := collect(t, func(fn func(Entry) error) error { return s.Index().ByURL("com,example)/a", fn) })
	if !slices.Equal(got, []string{a1.ID, a2.ID}) {
		t.Errorf("by URL %v, want %v", got, []string{a1.ID, a2.ID})
	}
}

func TestIndexManyDue(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir(), Options{})
	defer s.Close()
	var caps []Capture
	for i := range 3*512 + 7 { // more than three of the index's scan batches
		c := capture(fmt.Sprintf("https://example.com/%d", i), t0.Add(time.Duration(i)*time.Millisecond), fmt.Sprint(i))
		c.Period = embargo.None
		caps = append(caps, c)
	}
	seal(t, s, caps...)
	var last time.Time
	var marks []Mark
	n := 0
	if err := s.Index().Due(t0.Add(time.Hour), func(e Entry) error {
		if e.ReleaseAt.Before(last) {
			t.Fatalf("out of order at %d", n)
		}
		last = e.ReleaseAt
		n++
		if marks = append(marks, Mark{ID: e.ID, State: Released}); len(marks) == 100 {
			err := s.Index().Mark(marks)
			marks = marks[:0]
			return err
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Index().Mark(marks); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Index().Counts(t0.Add(time.Hour)); n != len(caps) || c.Released != n || c.Backlog != 0 {
		t.Errorf("counts after releasing all: %+v", c)
	}
	if n != len(caps) {
		t.Errorf("due visited %d of %d", n, len(caps))
	}
}

// TestDamagedIndexError checks that a damaged index.db gives an error that errors.Is tells apart
// as ErrIndexDamaged and that names the file, never a panic, and that Reindex moves it aside.
func TestDamagedIndexError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		damage func(b []byte) []byte
	}{
		{"truncated to 100 bytes", func(b []byte) []byte { return b[:100] }},
		{"truncated to one page", func(b []byte) []byte { return b[:4096] }},
		{"meta page 0 flipped", func(b []byte) []byte { b[20] ^= 0xff; return b }},
		{"meta page 1 flipped", func(b []byte) []byte { b[4096+20] ^= 0xff; return b }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := openTestStore(t, dir, Options{})
			seal(t, s, capture("https://example.com/a", t0, "body a"))
			s.Close()
			path := filepath.Join(dir, layout.IndexFile)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.damage(b), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = Verify(context.Background(), dir)
			if !errors.Is(err, ErrIndexDamaged) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Verify: %v, want an error naming %s that is ErrIndexDamaged", err, path)
			}
			if _, err := Reindex(context.Background(), dir); err != nil {
				t.Fatalf("Reindex: %v", err)
			}
			if aside, _ := filepath.Glob(path + ".damaged-*"); len(aside) != 1 {
				t.Errorf("the damaged index is not kept aside: %v", aside)
			}
			if ps, err := Verify(context.Background(), dir); err != nil || len(ps) != 0 {
				t.Errorf("Verify after Reindex: %v %v", ps, err)
			}
		})
	}
}
