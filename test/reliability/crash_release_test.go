package reliability

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
	"github.com/archivectl/archivectl/store"
	"github.com/nlnwa/gowarc/v3"
)

// crashTrials is how many kill -9 trials each crash test runs: 5 in CI, 50 in the full campaign.
func crashTrials() int {
	if campaign() {
		return 50
	}
	return 5
}

// TestKillReleasePass kills `archivectl release` with SIGKILL at a random moment of a pass over
// a random archive (releases and tombstones in many shards), then checks: no embargoed body
// under public/, no torn public file that `archivectl verify` does not report; and after a
// restarted pass: verify exits 0, every due capture is released exactly once, every other has
// exactly one tombstone, and no record appears twice under public/.
func TestKillReleasePass(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	seed := seedFor(t)
	rng := rand.New(rand.NewPCG(seed, 2))
	archivectl(t) // build it before anything is timed
	base := memDir(t)
	cfg := filepath.Join(base, "archivectl.yaml")
	if err := os.WriteFile(cfg, []byte("release:\n  shard_size: 16384\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The archive: 150 captures (200 in the full campaign), a first pass at p1, then half as
	// many crawled after it. Small, because archivectl verify reads everything, slowly.
	n := 150
	if campaign() {
		n = 200
	}
	g := newGenerator(seed, 5)
	data := filepath.Join(base, "data")
	p1 := t0.Add(60 * 24 * time.Hour)
	var first, second []*capture
	for range n {
		first = append(first, g.next(t0.Add(-200*24*time.Hour), p1))
	}
	seal(t, data, rng, p1, first, 64<<10)
	if r := run(t, "release", "--data", data, "--config", cfg, "--now", p1.Format(time.RFC3339)); r.code != 0 {
		t.Fatalf("first pass: exit %d: %s", r.code, r.stderr)
	}
	p2 := p1.Add(20 * 24 * time.Hour)
	for range n / 2 {
		second = append(second, g.next(p1, p2))
	}
	seal(t, data, rng, p2, second, 64<<10)

	released, tombstoned, killed := 0, 0, 0
	var took time.Duration // how long a whole pass takes here
	for trial := range crashTrials() {
		// A pass at a random instant after every capture: some due, most not.
		now := p2.Add(time.Duration(rng.Int64N(int64(120 * 24 * time.Hour)))).Truncate(time.Second)
		dir := filepath.Join(base, fmt.Sprintf("trial-%02d", trial))
		testkit.CopyTree(t, data, dir)
		passArgs := func(d string) []string {
			return []string{"release", "--data", d, "--config", cfg, "--now", now.Format(time.RFC3339)}
		}
		args := passArgs(dir)
		if took == 0 { // calibrate on a throwaway copy
			calib := filepath.Join(base, "calibrate")
			testkit.CopyTree(t, data, calib)
			ref := run(t, passArgs(calib)...)
			if ref.code != 0 {
				t.Fatalf("reference pass: exit %d: %s", ref.code, ref.stderr)
			}
			took = ref.took
			os.RemoveAll(calib)
		}
		delay := time.Duration(rng.Int64N(int64(took) + 1))
		if runKilled(t, delay, args...) {
			killed++
		}
		where := fmt.Sprintf("trial %d (pass at %s, killed after %v of %v)", trial, now.Format(time.RFC3339), delay, took)

		// Right after the kill: nothing embargoed is public, the public index is whole (the old
		// generation's or the new one's: its manifest names only complete segments), and every
		// torn public file is reported.
		noLeak(t, dir, g, now, where+", after the kill")
		if set, err := pubindex.Open(os.DirFS(filepath.Join(dir, "public")), nil); err != nil {
			t.Errorf("%s: the public index after the kill: %v", where, err)
		} else {
			set.Close()
		}
		torn := tornPublicFiles(t, dir)
		if len(torn) > 0 || campaign() { // verify reads everything, slowly: in CI only when it has something to find
			v := run(t, "verify", "--data", dir)
			switch {
			case v.code != 0 && v.code != 1:
				t.Errorf("%s: verify after the kill: exit %d: %s", where, v.code, v.stderr)
			case len(torn) > 0 && v.code == 0:
				t.Errorf("%s: verify exits 0 with torn public files %v", where, torn)
			}
			for _, f := range torn {
				if !strings.Contains(v.stdout+v.stderr, filepath.Base(f)) {
					t.Errorf("%s: verify does not report the torn file %s:\n%s%s", where, f, v.stdout, v.stderr)
				}
			}
		}

		// Restart: the pass completes, and the archive is exactly as an uninterrupted pass leaves it.
		if r := run(t, args...); r.code != 0 {
			t.Errorf("%s: restarted pass: exit %d: %s", where, r.code, r.stderr)
			continue
		}
		if v := run(t, "verify", "--data", dir); v.code != 0 {
			t.Errorf("%s: verify after the restarted pass: exit %d:\n%s%s", where, v.code, v.stdout, v.stderr)
		}
		noLeak(t, dir, g, now, where+", after the restart")
		rel, tomb := checkPublished(t, dir, g, now, where)
		released += rel
		tombstoned += tomb
		if t.Failed() {
			return
		}
		os.RemoveAll(dir)
	}
	t.Logf("release crash campaign: %d trials (%d killed mid-pass), %d captures each; after restart %d releases and %d tombstones checked, 0 failures",
		crashTrials(), killed, len(g.all), released, tombstoned)
}

// noLeak fails when any body that is not due at now lies under dir/public.
func noLeak(t *testing.T, dir string, g *generator, now time.Time, where string) {
	t.Helper()
	for m, file := range publicMarkers(t, filepath.Join(dir, "public")) {
		c := g.marker[m]
		if c == nil {
			t.Errorf("%s: %s holds an unknown marker %q", where, file, m)
			continue
		}
		due := false
		for _, o := range g.all {
			if o.marker == m && o.due(now) {
				due = true
			}
		}
		if !due {
			t.Errorf("LEAK %s: %s holds the body of %s, release %s", where, file, c.url, c.releaseAt.Format(time.RFC3339Nano))
		}
	}
}

// tornPublicFiles lists the public WARC files that do not read to the end and the CDXJ files
// with a line that does not parse.
func tornPublicFiles(t *testing.T, dir string) []string {
	t.Helper()
	var torn []string
	filepath.WalkDir(filepath.Join(dir, "public"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".warc.gz"):
			if err := store.ScanFile(p, func(store.Location, gowarc.WarcRecord) error { return nil }); err != nil {
				torn = append(torn, p)
			}
		case strings.HasSuffix(p, ".cdxj"):
			b, _ := os.ReadFile(p)
			if len(b) > 0 && b[len(b)-1] != '\n' {
				torn = append(torn, p)
				return nil
			}
			for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
				if _, err := public.ParseLine(l); len(l) > 0 && err != nil {
					torn = append(torn, p)
					break
				}
			}
		}
		return nil
	})
	return torn
}

// checkPublished checks the public CDXJ and records after a complete pass at now: every due
// capture released exactly once, every capture not due with exactly one tombstone and no
// release, and no WARC record twice. It returns the releases and tombstones it counted.
func checkPublished(t *testing.T, dir string, g *generator, now time.Time, where string) (released, tombstoned int) {
	t.Helper()
	rel, tomb := map[string]int{}, map[string]int{}
	for _, sub := range []string{"shards", "tombstones"} {
		names, _ := filepath.Glob(filepath.Join(dir, "public", sub, "*.cdxj"))
		for _, n := range names {
			f, err := os.Open(n)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				l, err := public.ParseLine(sc.Bytes())
				if err != nil {
					t.Errorf("%s: %s: %v", where, n, err)
					continue
				}
				if l.State == public.StateReleased {
					rel[l.ID]++
				} else {
					tomb[l.ID]++
				}
			}
			f.Close()
		}
	}
	for _, c := range g.all {
		id := strings.Trim(c.id, "<>")
		r, tb := rel[id]+rel[c.id], tomb[id]+tomb[c.id]
		switch {
		case c.due(now) && r != 1:
			t.Errorf("%s: %s (due) is released %d times", where, c.url, r)
		case !c.due(now) && (r != 0 || tb != 1):
			t.Errorf("%s: %s (not due) is released %d times, with %d tombstones", where, c.url, r, tb)
		case tb > 1:
			t.Errorf("%s: %s has %d tombstones", where, c.url, tb)
		}
		released += r
		tombstoned += tb
	}
	// No WARC record twice: every record id under public/ once (warcinfo records aside).
	seen := map[string]string{}
	filepath.WalkDir(filepath.Join(dir, "public"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".warc.gz") {
			return nil
		}
		err = store.ScanFile(p, func(loc store.Location, rec gowarc.WarcRecord) error {
			if rec.Type() == gowarc.Warcinfo {
				return nil
			}
			id := rec.WarcHeader().Get(gowarc.WarcRecordID)
			if other, dup := seen[id]; dup {
				t.Errorf("%s: record %s is in public/ twice: %s and %s@%d", where, id, other, loc.File, loc.Offset)
			}
			seen[id] = fmt.Sprintf("%s@%d", loc.File, loc.Offset)
			return nil
		})
		if err != nil {
			t.Errorf("%s: %s: %v", where, p, err)
		}
		return nil
	})
	return released, tombstoned
}
