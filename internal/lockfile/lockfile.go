// Package lockfile is the locking of archivectl's data directory: exclusive flocks that report,
// when busy, which process holds them, and one timeout for every wait on a lock. It uses only the
// standard library, so every package (and the bbolt files they open) can share it.
package lockfile

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

// DefaultTimeout is how long an operation waits for a lock another process holds before it
// gives up with a BusyError: long enough to ride out another process's commit, short enough
// that a real conflict is reported while a person still waits.
const DefaultTimeout = 5 * time.Second

// poll is how often a waiting Acquire retries the lock.
const poll = 20 * time.Millisecond

// ErrBusy means another process (or another open handle) holds a lock on a file of the data
// directory; the error that wraps it names the file and, where the system tells, the holder.
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

// Busy is the BusyError of path, naming the process that holds its lock.
func Busy(path string) *BusyError { return &BusyError{Path: path, Holder: holder(path)} }

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
			return thisProcess()
		}
		name := "process"
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
			name = strings.TrimSpace(string(b))
		}
		return fmt.Sprintf("%s (pid %d)", name, pid)
	}
	return "another process"
}

func thisProcess() string { return fmt.Sprintf("this process (pid %d)", os.Getpid()) }

// Lock is an exclusive flock held on a lock file.
type Lock struct{ f *os.File }

// forkWindow is how long even a zero timeout retries: a lock this process has just released may
// still be held for a moment by a child it forked meanwhile, which shares the open lock file
// from fork until exec closes it (a flock belongs to the open file, not to the descriptor).
const forkWindow = 100 * time.Millisecond

// Acquire takes the exclusive flock of path (creating the file, mode 0600), retrying for at most
// timeout (zero: at once, within forkWindow). A lock still held then gives a *BusyError naming the
// holder.
func Acquire(path string, timeout time.Duration) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	deadline := time.Now().Add(max(timeout, forkWindow))
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &Lock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, Busy(path)
		}
		time.Sleep(poll)
	}
}

// Release drops the lock; releasing a nil or released Lock does nothing.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the file drops the flock
	l.f = nil
	return err
}

// inProcess holds, per absolute path, the in-process lock of that file.
var inProcess sync.Map // path → chan struct{} of capacity 1

// InProcess serialises, inside one process, every open of one file whose flock is taken per open
// file (as bbolt does): two handles in one process would otherwise wait on each other through the
// lock's timeout, polling.
type InProcess struct {
	path string
	ch   chan struct{}
}

// InProcessOf is the in-process lock of path.
func InProcessOf(path string) InProcess {
	key := path
	if abs, err := filepath.Abs(path); err == nil {
		key = abs
	}
	m, _ := inProcess.LoadOrStore(key, make(chan struct{}, 1))
	return InProcess{path: path, ch: m.(chan struct{})}
}

// Acquire takes the lock, or gives up after timeout with a BusyError naming this process.
func (l InProcess) Acquire(timeout time.Duration) error {
	select {
	case l.ch <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case l.ch <- struct{}{}:
		return nil
	case <-t.C:
		return &BusyError{Path: l.path, Holder: thisProcess()}
	}
}

// Release drops the lock.
func (l InProcess) Release() { <-l.ch }
