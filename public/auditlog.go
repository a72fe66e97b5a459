package public

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
)

// The events of the audit log.
const (
	EventReleased   = "released"
	EventTombstoned = "tombstoned"
)

// Location is where a record lies in a public file.
type Location struct {
	File   string `json:"file"` // relative to public/
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
}

// LogEntry is one line of public/release-log.jsonl: a capture that became public, and when.
type LogEntry struct {
	Pass      time.Time `json:"pass"`  // the `now` of the pass that published it
	Event     string    `json:"event"` // "released" or "tombstoned"
	ID        string    `json:"id"`    // capture id
	URL       string    `json:"url"`
	Digest    string    `json:"digest"` // payload digest
	ReleaseAt time.Time `json:"release_at"`
	File      string    `json:"file"`   // relative to public/
	Offset    int64     `json:"offset"` // the response (or tombstone) member
	Length    int64     `json:"length"`
	Request   *Location `json:"request,omitempty"`  // released: the copied request member
	Metadata  *Location `json:"metadata,omitempty"` // released: the copied metadata member
}

// ReadLog reads the audit log of the public directory fsys, calling fn for each entry in order;
// a missing log has no entries.
func ReadLog(fsys fs.FS, fn func(LogEntry) error) error {
	f, err := fsys.Open(layout.ReleaseLogFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read public/%s: %w", layout.ReleaseLogFile, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var e LogEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("public/%s line %d: %w", layout.ReleaseLogFile, n, err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read public/%s: %w", layout.ReleaseLogFile, err)
	}
	return nil
}
