package lockfile

import (
	"bufio"
	"errors"
	"fmt"
	"go/build"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHolderChild is the child process of TestBusyOtherProcess: it holds the lock file
// ARCHIVECTL_LOCKFILE until its stdin closes.
func TestHolderChild(t *testing.T) {
	path := os.Getenv("ARCHIVECTL_LOCKFILE")
	if path == "" {
		t.Skip("only run as TestBusyOtherProcess's child")
	}
	l, err := Acquire(path, 0)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	defer l.Release()
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
}

func TestBusyOtherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "release.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHolderChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ARCHIVECTL_LOCKFILE="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		stdin.Close()
		cmd.Wait()
		t.Fatalf("child: %q", line)
	}
	_, err := Acquire(path, 100*time.Millisecond)
	comm := filepath.Base(os.Args[0])
	comm = comm[:min(len(comm), 15)] // the kernel keeps 15 bytes of a command's name
	want := fmt.Sprintf("%s is busy: %s (pid %d) holds it; retry when it exits", path, comm, cmd.Process.Pid)
	if !errors.Is(err, ErrBusy) || err.Error() != want {
		t.Errorf("Acquire of a lock another process holds: %v, want %q", err, want)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(path, 0)
	if err != nil {
		t.Fatalf("Acquire after the holder exited: %v", err)
	}
	l.Release()
}

func TestAcquire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		timeout time.Duration
	}{
		{"one try", 0},
		{"waits its timeout", 150 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "x.lock")
			held, err := Acquire(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = Acquire(path, tc.timeout)
			waited := time.Since(start)
			var be *BusyError
			if !errors.As(err, &be) || be.Path != path || be.Holder != fmt.Sprintf("this process (pid %d)", os.Getpid()) {
				t.Errorf("second Acquire: %v, want a BusyError on %s naming this process", err, path)
			}
			if waited < tc.timeout || waited > tc.timeout+2*time.Second {
				t.Errorf("gave up after %v, want about %v", waited, tc.timeout)
			}
			if err := held.Release(); err != nil {
				t.Fatal(err)
			}
			if err := held.Release(); err != nil {
				t.Errorf("second Release: %v", err)
			}
			again, err := Acquire(path, 0)
			if err != nil {
				t.Fatalf("Acquire after Release: %v", err)
			}
			again.Release()
		})
	}
}

func TestAcquireWaitsForRelease(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	held, err := Acquire(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, func() { held.Release() })
	l, err := Acquire(path, 5*time.Second)
	if err != nil {
		t.Fatalf("Acquire while the holder lets go: %v", err)
	}
	l.Release()
}

func TestAcquireCannotOpen(t *testing.T) {
	t.Parallel()
	_, err := Acquire(filepath.Join(t.TempDir(), "missing", "x.lock"), 0)
	if err == nil || errors.Is(err, ErrBusy) {
		t.Errorf("Acquire in a missing directory: %v, want an error other than busy", err)
	}
}

func TestInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	a := InProcessOf(path)
	if err := a.Acquire(time.Second); err != nil {
		t.Fatal(err)
	}
	// The same file under another spelling shares the lock.
	b := InProcessOf(filepath.Join(dir, ".", "index.db"))
	err := b.Acquire(100 * time.Millisecond)
	var be *BusyError
	if !errors.As(err, &be) || !strings.HasPrefix(be.Holder, "this process") || be.Path != filepath.Join(dir, ".", "index.db") {
		t.Errorf("second Acquire: %v, want a BusyError naming this process", err)
	}
	other := InProcessOf(filepath.Join(dir, "other.db"))
	if err := other.Acquire(0); err != nil {
		t.Errorf("another file's lock: %v", err)
	}
	other.Release()
	done := make(chan error)
	go func() { done <- b.Acquire(5 * time.Second) }()
	a.Release()
	if err := <-done; err != nil {
		t.Errorf("Acquire after Release: %v", err)
	}
	b.Release()
}

func TestBusyMessage(t *testing.T) {
	t.Parallel()
	err := error(&BusyError{Path: "/data/index.db", Holder: "archivectl (pid 4121)"})
	if got, want := err.Error(), "/data/index.db is busy: archivectl (pid 4121) holds it; retry when it exits"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(fmt.Errorf("release: %w", err), ErrBusy) {
		t.Error("a wrapped BusyError is not ErrBusy")
	}
	if got := Busy(filepath.Join(t.TempDir(), "unlocked")).Holder; got != "another process" {
		t.Errorf("holder of a file nobody locks: %q", got)
	}
}

// TestStandardLibraryOnly keeps lockfile a leaf that any package may use.
func TestStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("lockfile imports %s; it may use the standard library only", imp)
		}
	}
}
