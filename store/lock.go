package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrBusy means another process (or another open handle) holds a lock on the index or the sealed
// repository; the error that wraps it names the file and, where the system tells, the holder.
var ErrBusy = errors.New("busy")

// BusyError is ErrBusy with the file and its holder, in the one line a person sees.
type BusyError struct {
	Path   string // the locked file
	Holder string // e.g. "archivectl (pid 4121)", or "another process" when the system does not say
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is busy: %s holds it; retry when it exits", e.Path, e.Holder)
}

// Is makes errors.Is(err, ErrBusy) hold.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

func busyError(path string) error { return &BusyError{Path: path, Holder: holder(path)} }

// holder names the process that holds a flock on path, from /proc/locks (Linux);
// elsewhere, or when the lock cannot be attributed, it says "another process".
func holder(path string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return "another process"
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return "another process"
	}
	defer f.Close()
	want := ":" + strconv.FormatUint(st.Ino, 10)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 4121 08:01:1234567 0 EOF"
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] == "->" || !strings.HasSuffix(fs[5], want) {
			continue
		}
		pid, err := strconv.Atoi(fs[4])
		if err != nil || pid <= 0 {
			continue
		}
		if pid == os.Getpid() {
			return fmt.Sprintf("this process (pid %d)", pid)
		}
		name := "process"
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
			name = strings.TrimSpace(string(b))
		}
		return fmt.Sprintf("%s (pid %d)", name, pid)
	}
	return "another process"
}

// pathLocks serialises, inside one process, every open of one file: bbolt's flock is per open
// file, so two handles in one process would otherwise wait on each other through the lock's
// timeout, polling.
var pathLocks sync.Map // path → chan struct{} of capacity 1

// pathLock is the in-process lock of path.
type pathLock chan struct{}

func lockOf(path string) pathLock {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	m, _ := pathLocks.LoadOrStore(path, make(pathLock, 1))
	return m.(pathLock)
}

// acquire takes the lock, or gives up after timeout with a BusyError naming this process.
func (l pathLock) acquire(path string, timeout time.Duration) error {
	select {
	case l <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case l <- struct{}{}:
		return nil
	case <-t.C:
		return &BusyError{Path: path, Holder: fmt.Sprintf("this process (pid %d)", os.Getpid())}
	}
}

func (l pathLock) release() { <-l }

// writerLock is the exclusive lock a Store holds on its sealed directory for its lifetime,
// so that recovery never cuts another live writer's open file.
type writerLock struct{ f *os.File }

// lockWriter takes the writer lock file at path without waiting.
func lockWriter(path string) (*writerLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open writer lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, busyError(path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &writerLock{f: f}, nil
}

func (l *writerLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the file drops the flock
	l.f = nil
	return err
}
