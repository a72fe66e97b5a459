package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/internal/testkit"
	bolt "go.etcd.io/bbolt"
)

// TestLockHolderChild is the child process of TestLockTimeout: it holds index.db (read-write) or
// the store's writer lock until its stdin closes.
func TestLockHolderChild(t *testing.T) {
	dir, what := os.Getenv("ARCHIVECTL_LOCK_DIR"), os.Getenv("ARCHIVECTL_LOCK_WHAT")
	if dir == "" {
		t.Skip("only run as TestLockTimeout's child")
	}
	switch what {
	case "index":
		db, err := bolt.Open(filepath.Join(dir, layout.IndexFile), 0o600, &bolt.Options{Timeout: time.Second})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		defer db.Close()
	case "store":
		s, err := Open(dir, Options{Logger: testkit.QuietLogger()})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		defer s.Close()
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
}

func TestLockTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel()
	cases := []struct {
		name    string
		hold    string
		attempt func(dir string, ix *Index) error // ix: the index, opened before the child holds it
		minWait time.Duration
	}{
		{"index read waits for the timeout, then says who holds it", "index", func(_ string, ix *Index) error {
			_, _, err := ix.Get("<urn:uuid:x>")
			return err
		}, 300 * time.Millisecond},
		{"index write too", "index", func(_ string, ix *Index) error {
			return ix.Mark([]Mark{{ID: "<urn:uuid:x>", State: Released}})
		}, 300 * time.Millisecond},
		{"a second writer is refused at once", "store", func(dir string, _ *Index) error {
			_, err := Open(dir, Options{Logger: testkit.QuietLogger(), LockTimeout: 300 * time.Millisecond})
			return err
		}, 0},
		{"reindex is refused while a writer runs", "store", func(dir string, _ *Index) error {
			_, err := Reindex(t.Context(), dir)
			return err
		}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ix, err := OpenIndex(filepath.Join(dir, layout.IndexFile), 300*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "ARCHIVECTL_LOCK_DIR="+dir, "ARCHIVECTL_LOCK_WHAT="+tc.hold)
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer stdin.Close()
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if strings.TrimSpace(line) != "held" {
				t.Fatalf("child: %q", line)
			}
			start := time.Now()
			err = tc.attempt(dir, ix)
			waited := time.Since(start)
			if !errors.Is(err, lockfile.ErrBusy) {
				t.Fatalf("got %v, want lockfile.ErrBusy", err)
			}
			if waited < tc.minWait-100*time.Millisecond || // bbolt polls the lock every 50 ms
				waited > tc.minWait+5*time.Second {
				t.Errorf("gave up after %s, want about %s", waited, tc.minWait)
			}
			msg := err.Error()
			if !strings.Contains(msg, fmt.Sprintf("(pid %d)", cmd.Process.Pid)) || !strings.Contains(msg, dir) || strings.Contains(msg, "\n") {
				t.Errorf("message %q does not name the file and the holder (pid %d) on one line", msg, cmd.Process.Pid)
			}
			t.Log(msg)
		})
	}
}
