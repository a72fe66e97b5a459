package release

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/store"
)

// mountTmpfs mounts a tmpfs of size bytes on a fresh directory, unmounted when the test ends. Where
// mounting is not permitted (it needs root or CAP_SYS_ADMIN) the test is skipped, saying so.
func mountTmpfs(t *testing.T, size int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		t.Skipf("SKIPPED: cannot mount a tmpfs here (%v): a real full disk needs root or CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// resizeTmpfs gives the tmpfs mounted on dir a new size.
func resizeTmpfs(t *testing.T, dir string, size int64) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		t.Fatalf("resize the tmpfs: %v", err)
	}
}

// usedSpace is how many bytes dir's file system holds.
func usedSpace(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Blocks-st.Bfree) * st.Bsize
}

// sealIncompressible seals n captures with 20 KB bodies that gzip cannot shrink: a quarter of them
// due at once, the rest a week later.
func sealIncompressible(t *testing.T, dir string, n int) {
	t.Helper()
	s, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger(), Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	raw := make([]byte, 15<<10)
	var caps []store.Capture
	for i := range n {
		for k := range raw {
			raw[k] = byte(rng.Uint32())
		}
		p := embargo.Week
		if i%4 == 0 {
			p = embargo.None
		}
		c := testCapture(fmt.Sprintf("https://site.example/page/%d", i), t0.Add(time.Duration(i)*time.Second), p, i)
		body := base64.StdEncoding.EncodeToString(raw)
		c.Response = []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
		caps = append(caps, c)
	}
	if _, err := s.Seal(context.Background(), caps); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// dueCount is how many captures the index holds due at now.
func dueCount(t *testing.T, dir string, now time.Time) int {
	t.Helper()
	ix, err := store.OpenIndex(layout.Index(dir), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := ix.Due(now, func(store.Entry) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFullDiskDuringPass runs a pass on a real file system (a tmpfs) that fills up while the pass
// copies the due captures: the pass fails with one line saying so, public/ and the index are as
// they were, the temp files are gone; once there is room again, the next pass publishes every due
// capture exactly once.
func TestFullDiskDuringPass(t *testing.T) {
	mnt := mountTmpfs(t, 64<<20)
	dir := filepath.Join(mnt, "data")
	sealIncompressible(t, dir, 120)
	r := newTestReleaser(dir)
	mustPass(t, r, t0.Add(time.Hour)) // the first quarter released, the rest tombstoned
	later := t0.Add(8 * 24 * time.Hour)
	due := dueCount(t, dir, later)
	if due != 90 {
		t.Fatalf("%d captures due a week later, want 90", due)
	}
	before := snapshot(t, dir)
	resizeTmpfs(t, mnt, usedSpace(t, mnt)+(512<<10)) // room for about a third of the copy

	_, err := r.Pass(context.Background(), later)
	if err == nil {
		t.Fatal("a pass on a full disk succeeded")
	}
	msg := err.Error()
	t.Logf("the pass says: %s", msg)
	if !errors.Is(err, syscall.ENOSPC) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "the disk is full (") ||
		!strings.Contains(msg, "were not published") || !strings.Contains(msg, dir) {
		t.Errorf("the error is not one clear line about the full disk: %q", msg)
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("public/ changed: %d files before, %d after", len(before), len(after))
	}
	if n := dueCount(t, dir, later); n != due {
		t.Errorf("%d captures due after the failed pass, want %d", n, due)
	}
	left, _ := os.ReadDir(layout.ReleaseTmp(dir))
	if len(left) > 0 {
		t.Errorf("release-tmp/ keeps %d files after the failed pass, the first %s", len(left), left[0].Name())
	}
	if _, err := os.Stat(layout.ReleaseJournal(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a journal is left: %v", err)
	}

	resizeTmpfs(t, mnt, 64<<20)
	if s := mustPass(t, r, later); s.Released != due {
		t.Errorf("the pass after the disk was freed released %d, want %d", s.Released, due)
	}
	mustVerify(t, dir)
	released, _ := publicLines(t, dir)
	if len(released) != 120 {
		t.Errorf("%d captures public, want 120", len(released))
	}
	for id, n := range released {
		if n != 1 {
			t.Errorf("capture %s published %d times", id, n)
		}
	}
}
