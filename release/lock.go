package release

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/archivectl/archivectl/store"
)

// lockPoll is how often a waiting pass retries the release lock.
const lockPoll = 20 * time.Millisecond

// lock takes the exclusive release lock (flock on DATA/release.lock), waiting at most timeout.
// Busy ⇒ an error wrapping store.ErrBusy. The returned func releases it.
func lock(dataDir string, timeout time.Duration) (func(), error) {
	path := lockPath(dataDir)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	deadline := time.Now().Add(timeout)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("release: lock %s: %w", path, err)
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, fmt.Errorf("release: %s is busy: another release pass holds it; retry when it ends: %w", path, store.ErrBusy)
		}
		time.Sleep(lockPoll)
	}
}
