package lookup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/public"
)

// TestReadRecent: the most recent releases come from the end of a release log several chunks
// long, newest first, one per URL, tombstones and lines cut by chunk boundaries skipped whole.
func TestReadRecent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var log bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 6000
	tombstoned := func(i int) bool { return i%3 == 0 || i >= n-1000 } // the newest 1000: chunks of tombstones only
	const keep = 1500                                                 // more than one chunk holds: every cut line counts
	for i := range n {
		e := public.LogEntry{Pass: t0, Event: public.EventReleased, ID: fmt.Sprintf("<urn:uuid:%d>", i),
			URL: fmt.Sprintf("https://example.com/%d/%s", i%5000, strings.Repeat("x", i%97)), ReleaseAt: t0.Add(time.Duration(i) * time.Minute)}
		if tombstoned(i) {
			e.Event = public.EventTombstoned
		}
		b, _ := json.Marshal(e)
		log.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, "release-log.jsonl"), log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if log.Len() < 3*recentChunk {
		t.Fatalf("the log is %d bytes: too short to span chunks", log.Len())
	}
	got, err := readRecent(os.DirFS(dir), keep)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := n - 1; len(want) < keep; i-- {
		if !tombstoned(i) {
			want = append(want, fmt.Sprintf("https://example.com/%d/%s", i%5000, strings.Repeat("x", i%97)))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].URL != want[i] || got[i].Event != public.EventReleased {
			t.Fatalf("entry %d: %s %s, want %s", i, got[i].Event, got[i].URL, want[i])
		}
	}
	if got, err := readRecent(os.DirFS(t.TempDir()), recentKeep); err != nil || got != nil {
		t.Errorf("no log: %v, %v", got, err)
	}
}
