package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
	bolt "go.etcd.io/bbolt"
)

// copyFixture copies the schema 1 index of the repository's v1 fixture (store/testdata/v1, made
// by the code of commit ba5e1cf) into a fresh directory and returns its path.
func copyFixture(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "v1", "archive", "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// v1Entries reads the JSON entries and file ends of a schema 1 index as stored.
func v1Entries(t testing.TB, path string) (map[string]Entry, map[string]int64) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	entries, ends := map[string]Entry{}, map[string]int64{}
	if err := db.View(func(tx *bolt.Tx) error {
		if s := readSchema(tx); s != 1 {
			t.Fatalf("%s has schema %d", path, s)
		}
		if err := tx.Bucket(bucketV1Captures).ForEach(func(k, v []byte) error {
			var e Entry
			err := json.Unmarshal(v, &e)
			entries[string(k)] = e
			return err
		}); err != nil {
			return err
		}
		return tx.Bucket(bucketFiles).ForEach(func(k, _ []byte) error {
			ends[string(k)], _ = fileEnd(tx, string(k))
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	return entries, ends
}

// checkUpgraded checks that the index at path has this code's schema and holds exactly the
// schema 1 entries want and file ends wantEnds, consistent with itself (Check).
func checkUpgraded(t *testing.T, path string, want map[string]Entry, wantEnds map[string]int64) {
	t.Helper()
	if s, err := (&Index{path: path, timeout: time.Second}).schema(); err != nil || s != schemaVersion {
		t.Fatalf("schema %d %v", s, err)
	}
	c, err := Check(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Entries, want) {
		for id, w := range want {
			if g := c.Entries[id]; !reflect.DeepEqual(g, w) {
				t.Errorf("entry %s\n got %+v\nwant %+v", id, g, w)
			}
		}
		t.Errorf("%d entries, want %d", len(c.Entries), len(want))
	}
	if !reflect.DeepEqual(c.Ends, wantEnds) {
		t.Errorf("file ends %v, want %v", c.Ends, wantEnds)
	}
	if len(c.Problems) != 0 {
		t.Errorf("problems: %v", c.Problems)
	}
}

// collect is the ids a scan visits, in order.
func collect(t *testing.T, scan func(func(Entry) error) error) []string {
	t.Helper()
	var ids []string
	if err := scan(func(e Entry) error { ids = append(ids, e.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestUpgradeV1Fixture(t *testing.T) {
	t.Parallel()
	path := copyFixture(t)
	want, ends := v1Entries(t, path)
	if len(want) != 7 {
		t.Fatalf("the fixture holds %d captures, want 7", len(want))
	}
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	ix, err := Open(path, time.Second, log)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(logged.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "upgrading index.db in place from schema 1") {
		t.Errorf("the upgrade logged %q, want one line", logged.String())
	}
	checkUpgraded(t, path, want, ends)
	if c, err := ix.Counts(t0.Add(8 * 24 * time.Hour)); err != nil || c != (Counts{Sealed: 1, Tombstoned: 2, Released: 4}) {
		t.Errorf("counts %+v %v", c, err)
	}
	byState := func(s CaptureState) (ids []string) {
		for id, e := range want {
			if e.State == s {
				ids = append(ids, id)
			}
		}
		return ids
	}
	due := collect(t, func(fn func(Entry) error) error { return ix.Due(t0.Add(365*24*time.Hour), fn) })
	if !slices.Equal(slices.Sorted(slices.Values(due)), slices.Sorted(slices.Values(append(byState(Sealed), byState(Tombstoned)...)))) {
		t.Errorf("due after a year: %v", due)
	}
	if got := collect(t, func(fn func(Entry) error) error { return ix.Embargoed(t0.Add(9*24*time.Hour), fn) }); !slices.Equal(got, byState(Sealed)) {
		t.Errorf("embargoed %v, want %v", got, byState(Sealed))
	}
	if got := collect(t, func(fn func(Entry) error) error { return ix.ByURL("example,fixture)/a", fn) }); len(got) != 2 {
		t.Errorf("by URL /a: %v", got)
	}
	logged.Reset()
	if _, err := Open(path, time.Second, log); err != nil || logged.Len() != 0 {
		t.Errorf("second open: %v, logged %q", err, logged.String())
	}
}

func TestUpgradeLeftovers(t *testing.T) {
	t.Parallel()
	for _, v1 := range []bool{true, false} {
		path := copyFixture(t)
		want, ends := v1Entries(t, path)
		if !v1 {
			if _, err := Open(path, time.Second, testkit.QuietLogger()); err != nil {
				t.Fatal(err)
			}
		}
		leftovers := []string{path + upgradeSuffix, path + upgradeSuffix + buildSuffix}
		for _, p := range leftovers {
			if err := os.WriteFile(p, []byte("half an index"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Open(path, time.Second, testkit.QuietLogger()); err != nil {
			t.Fatalf("beside schema 1 %v: %v", v1, err)
		}
		for _, p := range leftovers {
			if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("beside schema 1 %v: leftover %s stays (%v)", v1, p, err)
			}
		}
		checkUpgraded(t, path, want, ends)
	}
}

// TestUpgradeKillChild is the child process of TestUpgradeKilled: it upgrades the index of
// INDEX_UPGRADE_PATH and kills itself at step INDEX_UPGRADE_STEP.
func TestUpgradeKillChild(t *testing.T) {
	path := os.Getenv("INDEX_UPGRADE_PATH")
	if path == "" {
		t.Skip("the child process of TestUpgradeKilled")
	}
	upgradeHook = func(step string) {
		if step == os.Getenv("INDEX_UPGRADE_STEP") {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	if _, err := Open(path, time.Second, testkit.QuietLogger()); err != nil {
		t.Fatal(err)
	}
}

// TestUpgradeKilled kills an upgrade after the new index is built and after it is renamed: the
// first leaves schema 1 untouched (and a leftover), the second schema 2; the next open ends with
// schema 2 holding every entry either way.
func TestUpgradeKilled(t *testing.T) {
	t.Parallel()
	for _, step := range []string{"built", "renamed"} {
		path := copyFixture(t)
		want, ends := v1Entries(t, path)
		before, _ := os.ReadFile(path)
		cmd := exec.Command(os.Args[0], "-test.run=^TestUpgradeKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "INDEX_UPGRADE_PATH="+path, "INDEX_UPGRADE_STEP="+step)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("%s: the child was not killed: %v\n%s", step, err, out)
		}
		after, _ := os.ReadFile(path)
		_, leftErr := os.Stat(path + upgradeSuffix)
		switch step {
		case "built":
			if !bytes.Equal(before, after) || leftErr != nil {
				t.Errorf("killed before the rename: index.db changed %v, leftover %v", !bytes.Equal(before, after), leftErr)
			}
		case "renamed":
			if ix := (&Index{path: path, timeout: time.Second}); !errors.Is(leftErr, fs.ErrNotExist) {
				t.Errorf("killed after the rename: leftover %v", leftErr)
			} else if s, err := ix.schema(); s != schemaVersion || err != nil {
				t.Errorf("killed after the rename: schema %d %v", s, err)
			}
		}
		if _, err := Open(path, time.Second, testkit.QuietLogger()); err != nil {
			t.Fatalf("%s: open after the kill: %v", step, err)
		}
		if _, err := os.Stat(path + upgradeSuffix); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the leftover stays after the next open", step)
		}
		checkUpgraded(t, path, want, ends)
	}
}
