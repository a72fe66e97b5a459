package index

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/internal/testkit"
	bolt "go.etcd.io/bbolt"
)

func TestIndexSchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, time.Second, testkit.QuietLogger())
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, []byte("99")) }); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, time.Second, testkit.QuietLogger()); err == nil || errors.Is(err, lockfile.ErrBusy) {
		t.Errorf("another schema opened: %v", err)
	}
}

func TestTimeKeyOrder(t *testing.T) {
	t.Parallel()
	times := []time.Time{
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Unix(0, 0),
		time.Unix(0, 1),
		t0,
		t0.Add(time.Nanosecond),
		time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC),
	}
	for i := range times {
		if got := keyTime(timeKey(times[i])); !got.Equal(times[i]) {
			t.Errorf("round trip %s → %s", times[i], got)
		}
		if i > 0 && string(timeKey(times[i-1])) >= string(timeKey(times[i])) {
			t.Errorf("key of %s not before key of %s", times[i-1], times[i])
		}
	}
}

func TestLockTimeoutInProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), layout.IndexFile)
	ix, err := Open(path, 200*time.Millisecond, testkit.QuietLogger())
	if err != nil {
		t.Fatal(err)
	}
	held, done := make(chan struct{}), make(chan struct{})
	go ix.update(func(*bolt.Tx) error { close(held); <-done; return nil })
	<-held
	_, _, err = ix.Get("<urn:uuid:x>")
	close(done)
	var be *lockfile.BusyError
	if !errors.As(err, &be) || !strings.Contains(be.Holder, "this process") {
		t.Errorf("got %v, want a BusyError naming this process", err)
	}
}

// TestScansDecideByReleasable: the due scan (a key range) and the tombstone scan split captures
// exactly where embargo.Releasable does, at the nanosecond around now.
func TestScansDecideByReleasable(t *testing.T) {
	t.Parallel()
	ix, err := Open(filepath.Join(t.TempDir(), "index.db"), time.Second, testkit.QuietLogger())
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(7 * 24 * time.Hour)
	offsets := []time.Duration{-time.Second, -time.Nanosecond, 0, time.Nanosecond, time.Second}
	if err := ix.update(func(tx *bolt.Tx) error {
		for i, d := range offsets {
			u := fmt.Sprintf("https://example.com/%d", i)
			key, _ := surt.Key(u)
			e := Entry{ID: fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", i), URL: u, SURT: key, Time: t0,
				Status: 200, PayloadDigest: Digest("sha256", fmt.Append(nil, i)), Period: embargo.Week, FirstSeen: t0,
				ReleaseAt: now.Add(d), Response: Location{File: "a.warc.gz", Offset: int64(i) * 100, Length: 100}}
			if err := putEntry(newCodec(tx), e); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	due, embargoed := map[string]bool{}, map[string]bool{}
	if err := ix.Due(now, func(e Entry) error { due[e.ID] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := ix.Embargoed(now, func(e Entry) error { embargoed[e.ID] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	for i, d := range offsets {
		id := fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", i)
		want := embargo.Releasable(now.Add(d), now)
		if due[id] != want || embargoed[id] == want {
			t.Errorf("release at now%+v: due %v, embargoed %v; Releasable says %v", d, due[id], embargoed[id], want)
		}
	}
}
