package release

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
	bolt "go.etcd.io/bbolt"
)

// TestPassSchedule releases a crawl over 91 days: at each step exactly the captures due are
// public, each once, the rest have one tombstone each, and no body of a capture still under
// embargo is in any public file.
func TestPassSchedule(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 40)
	r := newTestReleaser(a.dir)
	steps := []struct {
		name string
		now  time.Time
	}{
		{"crawl day", t0.Add(time.Hour)},
		{"after a week", t0.Add(8 * 24 * time.Hour)},
		{"after a month", t0.Add(32 * 24 * time.Hour)},
		{"after a quarter", t0.Add(91 * 24 * time.Hour)},
	}
	prevReleased := 0
	for _, st := range steps {
		s := mustPass(t, r, st.now)
		due := 0
		for _, e := range a.entries {
			if !e.ReleaseAt.After(st.now) {
				due++
			}
		}
		if got := prevReleased + s.Released; got != due {
			t.Errorf("%s: released %d in all, want %d", st.name, got, due)
		}
		prevReleased += s.Released
		released, embargoed := publicLines(t, a.dir)
		pub := snapshot(t, a.dir)
		for _, e := range a.entries {
			isDue := !e.ReleaseAt.After(st.now)
			switch {
			case isDue && released[e.ID] != 1:
				t.Errorf("%s: capture %s (release %s) has %d released lines, want 1", st.name, e.ID, e.ReleaseAt, released[e.ID])
			case !isDue && released[e.ID] != 0:
				t.Errorf("%s: capture %s released before %s", st.name, e.ID, e.ReleaseAt)
			case !isDue && embargoed[e.ID] != 1:
				t.Errorf("%s: capture %s has %d tombstones, want 1", st.name, e.ID, embargoed[e.ID])
			}
			if isDue {
				continue
			}
			for name, b := range pub {
				if bytes.Contains(plainText(t, name, b), []byte(a.secrets[e.ID])) {
					t.Errorf("%s: %s holds the body of embargoed capture %s", st.name, name, e.ID)
				}
			}
		}
		var want time.Time
		for _, e := range a.entries {
			if e.ReleaseAt.After(st.now) && (want.IsZero() || e.ReleaseAt.Before(want)) {
				want = e.ReleaseAt
			}
		}
		if !s.Next.Equal(want) {
			t.Errorf("%s: next release %v, want %v", st.name, s.Next, want)
		}
		mustVerify(t, a.dir)
	}
}

// TestPassIdempotent: a second pass at the same now changes no byte under public/.
func TestPassIdempotent(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 12)
	r := newTestReleaser(a.dir)
	now := t0.Add(8 * 24 * time.Hour)
	first := mustPass(t, r, now)
	if first.Released == 0 || first.Tombstoned == 0 {
		t.Fatalf("first pass released %d, tombstoned %d: the test needs both", first.Released, first.Tombstoned)
	}
	before := snapshot(t, a.dir)
	second := mustPass(t, r, now)
	if second.Released != 0 || second.Tombstoned != 0 {
		t.Errorf("second pass released %d, tombstoned %d, want 0, 0", second.Released, second.Tombstoned)
	}
	if after := snapshot(t, a.dir); !maps.EqualFunc(before, after, bytes.Equal) {
		t.Errorf("public/ changed on a second pass at the same now")
	}
}

// TestPublicFiles checks the layout, modes, warcinfo-first shards and the CDXJ of released lines.
func TestPublicFiles(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 24)
	r := newTestReleaser(a.dir)
	now := t0.Add(time.Hour)
	mustPass(t, r, now)
	shards, _ := filepath.Glob(filepath.Join(a.dir, "public", "shards", "PUBLIC-20260301130000-*.warc.gz"))
	tombs, _ := filepath.Glob(filepath.Join(a.dir, "public", "tombstones", "TOMBSTONES-20260301130000-*.warc.gz"))
	if len(shards) == 0 || len(tombs) == 0 {
		t.Fatalf("shards %v, tombstones %v: want both", shards, tombs)
	}
	for _, p := range append(shards, tombs...) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", p, st.Mode().Perm())
		}
		if _, err := os.Stat(strings.TrimSuffix(p, ".warc.gz") + ".cdxj"); err != nil {
			t.Errorf("no CDXJ beside %s: %v", p, err)
		}
	}
	st, err := os.Stat(filepath.Join(a.dir, "public"))
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("public/: %v %v, want mode 0755", st.Mode().Perm(), err)
	}
	var s public.Status
	b, _ := os.ReadFile(filepath.Join(a.dir, "public", "state.json"))
	if err := json.Unmarshal(b, &s); err != nil || s.Generation == 0 || !s.LastPass.Equal(now) || s.NextRelease == nil {
		t.Errorf("state.json = %s (%v)", b, err)
	}
	ix, _ := store.OpenIndex(filepath.Join(a.dir, "index.db"), time.Second)
	for _, e := range a.entries {
		got, _, err := ix.Get(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := store.Tombstoned
		if !e.ReleaseAt.After(now) {
			want = store.Released
		}
		if got.State != want || got.Public.File == "" {
			t.Errorf("capture %s: state %s at %+v, want %s", e.ID, got.State, got.Public, want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(a.dir, "release-tmp")); len(entries) != 0 {
		t.Errorf("release-tmp/ holds %d files after a pass", len(entries))
	}
	if _, err := os.Stat(layout.ReleaseJournal(a.dir)); !os.IsNotExist(err) {
		t.Errorf("journal left behind: %v", err)
	}
}

// TestShardRotation: a small shard size splits one pass over several shards, each with a warcinfo first.
func TestShardRotation(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 40)
	r := New(a.dir, Options{ShardSize: 4 << 10, Logger: testkit.QuietLogger()})
	s := mustPass(t, r, t0.Add(91*24*time.Hour))
	shards, _ := filepath.Glob(filepath.Join(a.dir, "public", "shards", "*.warc.gz"))
	if len(shards) < 3 {
		t.Errorf("%d captures in %d shards of 4 KiB, want several", s.Released, len(shards))
	}
	mustVerify(t, a.dir)
}

// TestPassBusy: a pass gives up with lockfile.ErrBusy, within its timeout, when index.db or the release lock is held.
func TestPassBusy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		hold func(t *testing.T, dir string) func()
	}{
		{"index.db held", func(t *testing.T, dir string) func() {
			db, err := bolt.Open(filepath.Join(dir, "index.db"), 0o600, &bolt.Options{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			return func() { db.Close() }
		}},
		{"another pass", func(t *testing.T, dir string) func() {
			l, err := lockfile.Acquire(filepath.Join(dir, "release.lock"), 0)
			if err != nil {
				t.Fatal(err)
			}
			return func() { l.Release() }
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := buildArchive(t, t.TempDir(), 4)
			release := tc.hold(t, a.dir)
			r := New(a.dir, Options{LockTimeout: 100 * time.Millisecond, Logger: testkit.QuietLogger()})
			start := time.Now()
			_, err := r.Pass(context.Background(), t0.Add(time.Hour))
			if !errors.Is(err, lockfile.ErrBusy) {
				t.Errorf("Pass = %v, want an error wrapping lockfile.ErrBusy", err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("a busy pass took %v", d)
			}
			release()
			mustPass(t, r, t0.Add(time.Hour))
			mustVerify(t, a.dir)
		})
	}
}

// TestRevisitOrder: a revisit due with its original is released in the same pass, after it;
// one whose original is not public is held back.
func TestRevisitOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger(), Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	c := testCapture("https://a.example/same", t0, 7, 1)
	es1, err := s.Seal(context.Background(), []store.Capture{c})
	if err != nil {
		t.Fatal(err)
	}
	c.Time = t0.Add(24 * time.Hour)
	es2, err := s.Seal(context.Background(), []store.Capture{c})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	orig, rev := es1[0], es2[0]
	if !rev.Revisit || rev.RefersTo != orig.ID {
		t.Fatalf("second capture is not a revisit of the first: %+v", rev)
	}
	r := newTestReleaser(dir)
	ix, _ := store.OpenIndex(filepath.Join(dir, "index.db"), time.Second)
	p := &pass{r: r, ix: ix}
	got, deferred, err := p.plan([]store.Entry{rev})
	if err != nil || len(got) != 0 || len(deferred) != 1 || deferred[0] != rev.ID {
		t.Errorf("plan(revisit alone) = %d entries, deferred %v, %v; want it held back", len(got), deferred, err)
	}
	got, deferred, err = p.plan([]store.Entry{rev, orig})
	if err != nil || len(got) != 2 || got[0].ID != orig.ID || len(deferred) != 0 {
		t.Errorf("plan(revisit, original) did not keep both, in sealed order: deferred %v, %v", deferred, err)
	}
	sum := mustPass(t, r, rev.ReleaseAt)
	if sum.Released != 2 {
		t.Errorf("released %d, want the original and its revisit", sum.Released)
	}
	mustVerify(t, dir)
}

// TestPassRefusesBadJournal: a journal that cannot be read or applied stops the pass with one
// line saying what to do, and changes nothing public.
func TestPassRefusesBadJournal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		journal string
		want    string
	}{
		{"damaged", `{"pass":`, "is damaged"},
		{"lost files", `{"pass":"2026-03-01T13:00:00Z","files":[{"tmp":"release-tmp/gone.warc.gz","public":"shards/gone.warc.gz"}]}`, "lost both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := buildArchive(t, t.TempDir(), 4)
			if err := os.WriteFile(layout.ReleaseJournal(a.dir), []byte(tc.journal), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := newTestReleaser(a.dir).Pass(context.Background(), t0.Add(time.Hour))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Pass = %v, want one line containing %q", err, tc.want)
			}
			if n := len(snapshot(t, a.dir)); n != 0 {
				t.Errorf("%d public files written despite the bad journal", n)
			}
		})
	}
}

// TestRevisitAcrossBatches: a revisit whose original comes in a later batch of the same pass is
// released in that pass too, not held back until the next one. Not parallel: it sets maxBatch.
func TestRevisitAcrossBatches(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger(), Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	const pairs = 8 // due order within one release time is by id: some revisit precedes its original
	var due time.Time
	for i := range pairs {
		c := testCapture(fmt.Sprintf("https://a.example/p%d", i), t0, 7, i)
		es, err := s.Seal(context.Background(), []store.Capture{c})
		if err != nil {
			t.Fatal(err)
		}
		c.Time = t0.Add(time.Hour)
		rs, err := s.Seal(context.Background(), []store.Capture{c})
		if err != nil || !rs[0].Revisit || !rs[0].ReleaseAt.Equal(es[0].ReleaseAt) {
			t.Fatalf("revisit %d: %+v, %v", i, rs, err)
		}
		due = rs[0].ReleaseAt
	}
	s.Close()
	old := maxBatch
	maxBatch = 1
	defer func() { maxBatch = old }()
	sum := mustPass(t, newTestReleaser(dir), due)
	if sum.Released != 2*pairs || sum.Deferred != 0 {
		t.Errorf("released %d, deferred %d; want %d and 0", sum.Released, sum.Deferred, 2*pairs)
	}
	mustVerify(t, dir)
}

// TestPassOnRecord: every pass is on record in state.json, and passes only move forward. A pass
// at the same now changes no byte under public/; a later one with nothing to publish rewrites
// only state.json (last_pass moves, generation and counts stay); an earlier one is refused and
// changes nothing; a pass whose now is ahead of its (injected) wall clock says so.
func TestPassOnRecord(t *testing.T) {
	t.Parallel()
	now := t0.Add(8 * 24 * time.Hour)
	for _, tc := range []struct {
		name    string
		next    func(first Summary) time.Time // the second pass's now
		clock   time.Duration                 // the wall clock of the second pass, relative to its now
		err     error
		changed []string // files under public/ the second pass changes
		ahead   bool
	}{
		{name: "same now", next: func(Summary) time.Time { return now }},
		{name: "later, nothing due", next: func(f Summary) time.Time { return now.Add(f.Next.Sub(now) / 2) }, changed: []string{"state.json"}},
		{name: "later, ahead of the clock", next: func(f Summary) time.Time { return now.Add(f.Next.Sub(now) / 2) }, clock: -24 * time.Hour,
			changed: []string{"state.json"}, ahead: true},
		{name: "later, within the slack", next: func(f Summary) time.Time { return now.Add(f.Next.Sub(now) / 2) }, clock: -public.ClockSlack,
			changed: []string{"state.json"}},
		{name: "earlier", next: func(Summary) time.Time { return now.Add(-time.Second) }, err: ErrNowBeforeLastPass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := buildArchive(t, t.TempDir(), 12)
			first := mustPass(t, newTestReleaser(a.dir), now)
			if first.Next.IsZero() || first.Released == 0 {
				t.Fatalf("first pass %+v: the test needs a release and a next release", first)
			}
			before := snapshot(t, a.dir)
			st0, _ := readStatus(a.dir)
			at := tc.next(first)
			r := New(a.dir, Options{ShardSize: 32 << 10, Logger: testkit.QuietLogger(), Software: "archivectl-test",
				Clock: func() time.Time { return at.Add(tc.clock) }})
			s, err := r.Pass(context.Background(), at)
			if !errors.Is(err, tc.err) || s.Released+s.Tombstoned != 0 {
				t.Fatalf("second pass at %s: %+v, %v; want nothing published and error %v", at.Format(time.RFC3339), s, err, tc.err)
			}
			after := snapshot(t, a.dir)
			var changed []string
			for name, b := range after {
				if !bytes.Equal(before[name], b) {
					changed = append(changed, name)
				}
			}
			if len(after) != len(before) || !slices.Equal(changed, tc.changed) {
				t.Errorf("files changed %v (%d files, were %d), want %v", changed, len(after), len(before), tc.changed)
			}
			st, err := readStatus(a.dir)
			wantLast := at
			if tc.err != nil {
				wantLast = now
			}
			if err != nil || !st.LastPass.Equal(wantLast) || st.Generation != st0.Generation || st.Released != st0.Released ||
				st.Tombstoned != st0.Tombstoned || st.AheadOfClock != tc.ahead || st.NextRelease == nil || !st.NextRelease.Equal(first.Next) {
				t.Errorf("state.json = %+v (%v), was %+v; want last_pass %s, ahead_of_clock %v", st, err, st0, wantLast, tc.ahead)
			}
		})
	}
}
