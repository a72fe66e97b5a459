package index

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	bolt "go.etcd.io/bbolt"
)

func TestIndexSchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, time.Second, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, []byte("99")) }); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, time.Second, quietLogger()); err == nil || errors.Is(err, lockfile.ErrBusy) {
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
	ix, err := Open(path, 200*time.Millisecond, quietLogger())
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
