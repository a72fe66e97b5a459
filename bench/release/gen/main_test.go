package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
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
	names, _ := filepath.Glob(filepath.Join(layout.Access(dir), "*"+public.ACLExt))
	under, nrules := 0, 0
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rules, err := public.ParseEmbargoACL(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range rules {
			under += r.Captures
		}
		nrules += len(rules)
	}
	lines := 0
	cdxjs, _ := filepath.Glob(filepath.Join(layout.Embargoed(dir), "*"+public.CDXJExt))
	for _, name := range cdxjs {
		b, _ := os.ReadFile(name)
		lines += bytes.Count(b, []byte("\n"))
	}
	if under != sum.Tombstoned || nrules == 0 || lines != sum.Tombstoned {
		t.Errorf("the day files count %d captures in %d rules and %d tombstone lines, want %d", under, nrules, lines, sum.Tombstoned)
	}
}

// TestResume interrupts a build and resumes it: the archive holds the same captures in the same
// states as one built without interruption.
func TestResume(t *testing.T) {
	if testing.Short() {
		t.Skip("seals a few thousand captures")
	}
	const n, batch, due, every = 3000, 500, 10, 30 * 24 * time.Hour
	whole, parts := filepath.Join(t.TempDir(), "whole"), filepath.Join(t.TempDir(), "parts")
	want, err := build(whole, n, batch, due, 3, every)
	if err != nil {
		t.Fatal(err)
	}
	stopAfter = 1500
	if _, err := build(parts, n, batch, due, 3, every); !errors.Is(err, errStopped) {
		t.Fatalf("the interrupted build: %v", err)
	}
	stopAfter = 0
	got, err := build(parts, n, batch, due, 3, every)
	if err != nil {
		t.Fatal(err)
	}
	if got.ResumedAt != 1500 || got.Now != want.Now || got.Released != want.Released || got.Revisits != want.Revisits {
		t.Errorf("resumed %+v, uninterrupted %+v", got, want)
	}
	facts := func(dir string) map[string]string {
		ix, err := store.OpenIndex(layout.Index(dir), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		if err := ix.Each(func(e store.Entry) error {
			m[e.URL+" "+e.Time.String()] = fmt.Sprint(e.State, e.ReleaseAt, e.Revisit, e.PayloadDigest)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if a, b := facts(whole), facts(parts); !reflect.DeepEqual(a, b) {
		t.Errorf("the resumed archive differs: %d and %d captures", len(a), len(b))
	}
}
