package reliability

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/store"
	bolt "go.etcd.io/bbolt"
)

// v1Fixture is the schema 1 archive the code of commit ba5e1cf wrote (store/testdata/v1).
var v1Fixture = filepath.Join("..", "..", "store", "testdata", "v1", "archive")

// TestUpgradeByBinary runs the archivectl binary on the schema 1 fixture (its public index
// rebuilt first, as for any archive from before the public index): verify upgrades the
// index (saying so in one line on stderr) and finds the archive sound; a pass then releases the
// rest; nothing mentions the upgrade again.
func TestUpgradeByBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	testkit.CopyTree(t, v1Fixture, dir)
	// The fixture predates the public index too: verify would report it missing.
	if r := run(t, "reindex-public", "--data", dir); r.code != 0 || r.stderr != "" {
		t.Fatalf("reindex-public of the schema 1 fixture: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r := run(t, "verify", "--data", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "sealed repository ok: 7 captures (1 sealed, 2 tombstoned, 4 released)") {
		t.Fatalf("verify of the schema 1 fixture: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "upgrading index.db in place from schema 1") {
		t.Errorf("verify's stderr: %q, want one line about the upgrade", r.stderr)
	}
	r = run(t, "release", "--data", dir, "--now", "2026-06-10T00:00:00Z")
	if r.code != 0 || strings.Contains(r.stderr, "upgrad") {
		t.Fatalf("release after the upgrade: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, "verify", "--data", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "sealed repository ok: 7 captures (0 sealed, 0 tombstoned, 7 released)") || r.stderr != "" {
		t.Errorf("verify after a pass: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// v1Key is schema 1's timeKey: seconds with the sign bit flipped, then nanoseconds.
func v1Key(t time.Time) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(t.Unix())^(1<<63))
	return binary.BigEndian.AppendUint32(k, uint32(t.Nanosecond()))
}

// growV1 adds n captures to the schema 1 index at path, stored the way schema 1 stores them (a
// JSON entry under its id; due, embargoed and urls keys; the counts): copies of its own entries
// under fresh ids and URLs. It returns every entry the index then holds.
func growV1(t *testing.T, path string, n int) map[string]store.Entry {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := map[string]store.Entry{}
	err = db.Update(func(tx *bolt.Tx) error {
		caps := tx.Bucket([]byte("captures"))
		var templates []store.Entry
		if err := caps.ForEach(func(k, v []byte) error {
			var e store.Entry
			err := json.Unmarshal(v, &e)
			templates, all[e.ID] = append(templates, e), e
			return err
		}); err != nil {
			return err
		}
		var counts [3]int64
		for i := range n {
			e := templates[i%len(templates)]
			e.ID = fmt.Sprintf("<urn:uuid:%08x-0000-4000-8000-%012x>", i, i)
			e.URL, e.SURT = fmt.Sprintf("%s?copy=%d", e.URL, i), fmt.Sprintf("%s?copy=%d", e.SURT, i)
			v, err := json.Marshal(e)
			if err != nil {
				return err
			}
			rk := append(v1Key(e.ReleaseAt), e.ID...)
			puts := []struct{ b, k, v []byte }{
				{[]byte("captures"), []byte(e.ID), v},
				{[]byte("urls"), append(append([]byte(e.SURT+"\x00"), v1Key(e.Time)...), e.ID...), nil},
			}
			if e.State != store.Released {
				puts = append(puts, struct{ b, k, v []byte }{[]byte("due"), rk, nil})
			}
			if e.State == store.Sealed {
				puts = append(puts, struct{ b, k, v []byte }{[]byte("embargoed"), rk, nil})
			}
			for _, p := range puts {
				if err := tx.Bucket(p.b).Put(p.k, p.v); err != nil {
					return err
				}
			}
			counts[e.State]++
			all[e.ID] = e
		}
		meta := tx.Bucket([]byte("meta"))
		for s, d := range counts {
			k := []byte("count/" + store.CaptureState(s).String())
			meta.Put(k, binary.BigEndian.AppendUint64(nil, binary.BigEndian.Uint64(meta.Get(k))+uint64(d)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// TestUpgradeChild is the child process of TestKillUpgrade: it opens the index of
// RELIABILITY_UPGRADE_DIR, which upgrades it, logging on stderr.
func TestUpgradeChild(t *testing.T) {
	dir := os.Getenv("RELIABILITY_UPGRADE_DIR")
	if dir == "" {
		t.Skip("the child process of TestKillUpgrade")
	}
	if _, err := store.OpenIndex(filepath.Join(dir, layout.IndexFile), 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

// upgradeChild starts TestUpgradeChild on dir and waits for its line announcing the upgrade;
// with kill it kills the child after delay, else it waits for the end. It returns how long the
// upgrade ran and whether the child was killed before it ended.
func upgradeChild(t *testing.T, dir string, kill bool, delay time.Duration) (time.Duration, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestUpgradeChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RELIABILITY_UPGRADE_DIR="+dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	announced := false
	for !announced && sc.Scan() {
		announced = strings.Contains(sc.Text(), "upgrading index.db in place")
	}
	start := time.Now()
	if !announced {
		cmd.Wait()
		t.Fatalf("the child did not announce an upgrade")
	}
	killed := false
	if kill {
		timer := time.AfterFunc(delay, func() { killed = cmd.Process.Kill() == nil })
		defer timer.Stop()
	}
	for sc.Scan() {
	}
	err = cmd.Wait()
	took := time.Since(start)
	if err != nil && !killed {
		t.Fatalf("the upgrade failed: %v", err)
	}
	return took, killed && err != nil
}

// TestKillUpgrade kills a process at random moments of an upgrade of a schema 1 index of 10,000
// captures: after the kill index.db is either the schema 1 file byte for byte or a complete
// schema 2 index, and the next open leaves a schema 2 index holding every entry as schema 1 did.
func TestKillUpgrade(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	seed := seedFor(t)
	rng := rand.New(rand.NewPCG(seed, 13))
	base := memDir(t)
	template := filepath.Join(base, "template")
	testkit.CopyTree(t, v1Fixture, template)
	want := growV1(t, filepath.Join(template, layout.IndexFile), 10000)
	v1, err := os.ReadFile(filepath.Join(template, layout.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	check := func(dir string) {
		t.Helper()
		got := indexEntries(t, dir) // opens it: upgrades what is still schema 1
		if len(got) != len(want) {
			t.Fatalf("%s: %d entries after the upgrade, want %d", dir, len(got), len(want))
		}
		for id, w := range want {
			if g := got[id]; !reflect.DeepEqual(g, w) {
				t.Fatalf("%s: entry %s\n got %+v\nwant %+v", dir, id, g, w)
			}
		}
		for _, left := range []string{".upgrade", ".upgrade.build"} {
			if _, err := os.Stat(filepath.Join(dir, layout.IndexFile+left)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: a leftover of the upgrade stays after the next open (%v)", dir, err)
			}
		}
	}
	whole := filepath.Join(base, "whole")
	testkit.CopyTree(t, template, whole)
	took, _ := upgradeChild(t, whole, false, 0)
	check(whole)
	t.Logf("an upgrade of %d captures took %s", len(want), took.Round(time.Millisecond))
	outcomes := map[string]int{}
	for trial := range crashTrials() * 2 {
		dir := filepath.Join(base, fmt.Sprintf("trial-%02d", trial))
		testkit.CopyTree(t, template, dir)
		_, killed := upgradeChild(t, dir, true, time.Duration(rng.Int64N(int64(took+took/4))))
		now, err := os.ReadFile(filepath.Join(dir, layout.IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case bytes.Equal(now, v1):
			outcomes["schema 1 left as it was"]++
		case killed:
			outcomes["schema 2 in place when killed"]++
		default:
			outcomes["upgrade finished before the kill"]++
		}
		check(dir)
		os.RemoveAll(dir)
	}
	t.Logf("outcomes: %v", outcomes)
	if outcomes["schema 1 left as it was"] == 0 {
		t.Errorf("no kill landed during an upgrade: %v", outcomes)
	}
}
