package release

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/store"
)

// TestCommitRefusedWithoutRoom: when the disk has room for a commit's files but not for what
// applying its journal writes, the commit is refused before its journal, so that public/ stays as
// it was; with room again, the next pass publishes it. (freeSpace is faked: not parallel.)
func TestCommitRefusedWithoutRoom(t *testing.T) {
	dir := t.TempDir()
	buildArchive(t, dir, 40)
	r := newTestReleaser(dir)
	later := t0.Add(8 * 24 * time.Hour)
	before := snapshot(t, dir)
	saved := freeSpace
	defer func() { freeSpace = saved }()
	freeSpace = func(string) (int64, bool) { return 100 << 10, true }

	_, err := r.Pass(context.Background(), later)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	t.Logf("the pass says: %s", msg)
	if !errors.Is(err, syscall.ENOSPC) || strings.Contains(msg, "\n") || !strings.Contains(msg, "committing needs") ||
		!strings.Contains(msg, "were not published") {
		t.Fatalf("want one line refusing the commit for want of room, got %v", err)
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("public/ changed: %d files before, %d after", len(before), len(after))
	}
	if _, err := os.Stat(layout.ReleaseJournal(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a journal is left: %v", err)
	}

	freeSpace = saved
	if s := mustPass(t, r, later); s.Released != 20 || s.Tombstoned != 20 {
		t.Errorf("the pass with room: %+v, want 20 released and 20 tombstoned", s)
	}
	mustVerify(t, dir)
}

func TestRoomToCommit(t *testing.T) {
	saved := freeSpace
	defer func() { freeSpace = saved }()
	j := &journal{Log: strings.Repeat("x", 1000), Marks: make([]store.Mark, 10)}
	need := int64(500) + 1000 + stateRoom + 10*roomPerMark
	for _, tc := range []struct {
		name  string
		free  int64
		known bool
		fails bool
	}{
		{"plenty", 1 << 30, true, false},
		{"exactly enough", need, true, false},
		{"a byte short", need - 1, true, true},
		{"unknown", 0, false, false},
	} {
		freeSpace = func(string) (int64, bool) { return tc.free, tc.known }
		err := roomToCommit(t.TempDir(), j, 500)
		if (err != nil) != tc.fails || err != nil && !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
