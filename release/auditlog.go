package release

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/durable"
	"github.com/archivectl/archivectl/store/layout"
)

// The events of the audit log.
const (
	EventReleased   = "released"
	EventTombstoned = "tombstoned"
)

// LogEntry is one line of public/release-log.jsonl: a capture that became public, and when.
type LogEntry struct {
	Pass      time.Time       `json:"pass"`  // the `now` of the pass that published it
	Event     string          `json:"event"` // "released" or "tombstoned"
	ID        string          `json:"id"`    // capture id
	URL       string          `json:"url"`
	Digest    string          `json:"digest"` // payload digest
	ReleaseAt time.Time       `json:"release_at"`
	File      string          `json:"file"`   // relative to public/
	Offset    int64           `json:"offset"` // the response (or tombstone) member
	Length    int64           `json:"length"`
	Request   *store.Location `json:"request,omitempty"`  // released: the copied request member
	Metadata  *store.Location `json:"metadata,omitempty"` // released: the copied metadata member
}

// ReadLog reads the audit log under dataDir, calling fn for each entry in order.
func ReadLog(dataDir string, fn func(LogEntry) error) error {
	f, err := os.Open(layout.ReleaseLog(dataDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var e LogEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("release: %s line %d: %w", layout.ReleaseLog(dataDir), n, err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return sc.Err()
}

// appendLog makes the log exactly size bytes long (cutting what an interrupted commit left)
// and appends lines, then fsyncs. Replaying a commit therefore writes the same bytes again.
func appendLog(path string, size int64, lines []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, publicFileMode)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	st, err := f.Stat()
	if err == nil {
		err = f.Chmod(publicFileMode) // whatever the umask
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("release: %w", err)
	}
	if st.Size() < size {
		f.Close()
		return fmt.Errorf("release: %s is %d bytes, shorter than the %d a commit saw: it was cut by someone; restore it from a backup", path, st.Size(), size)
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return fmt.Errorf("release: %w", err)
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return fmt.Errorf("release: %w", err)
	}
	if _, err := f.Write(lines); err != nil {
		f.Close()
		return fmt.Errorf("release: append %s: %w", path, err)
	}
	if err := durable.SyncClose(f); err != nil {
		return fmt.Errorf("release: sync %s: %w", path, err)
	}
	return nil
}
