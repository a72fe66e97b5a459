package lookup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
)

// Bounds of the release log's tail read for the most recent releases.
const (
	recentKeep  = 50 // releases kept per generation (distinct URLs, newest first)
	recentChunk = 64 << 10
	recentMax   = 2 << 20 // bytes read from the end of the log at most
)

// recentList is the most recent releases of one index generation, newest first.
type recentList struct {
	generation int64
	entries    []public.LogEntry
}

// recentReleases returns the most recent releases (distinct URLs, latest release time first), at
// most n: what the release log says was released, whatever the server's clock says. It reads the
// tail of public/release-log.jsonl once per generation.
func (s *Server) recentReleases(ix *index, n int) []public.LogEntry {
	cur := s.recent.Load()
	if cur == nil || cur.generation != ix.generation {
		entries, err := readRecent(s.fsys, recentKeep)
		if err != nil {
			s.log.Warn("recent releases not shown", "err", err)
		}
		// Newest release time first: one pass publishes in its own order.
		slices.SortStableFunc(entries, func(a, b public.LogEntry) int { return b.ReleaseAt.Compare(a.ReleaseAt) })
		cur = &recentList{generation: ix.generation, entries: entries}
		s.recent.Store(cur)
	}
	return cur.entries[:min(n, len(cur.entries))]
}

// readRecent reads the release log backwards from its end, in chunks, until it has keep released
// entries of distinct URLs or has read recentMax bytes.
func readRecent(fsys fs.FS, keep int) ([]public.LogEntry, error) {
	f, err := fsys.Open(layout.ReleaseLogFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open public/%s: %w", layout.ReleaseLogFile, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat public/%s: %w", layout.ReleaseLogFile, err)
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		return nil, fmt.Errorf("public/%s does not allow random access", layout.ReleaseLogFile)
	}
	var out []public.LogEntry
	seen := map[string]bool{}
	end := fi.Size()
	var carry []byte // the start of a line cut by the previous chunk boundary
	for read := int64(0); end > 0 && read < recentMax && len(out) < keep; {
		from := max(0, end-recentChunk)
		buf := make([]byte, end-from, end-from+int64(len(carry)))
		if _, err := ra.ReadAt(buf, from); err != nil && err != io.EOF {
			return out, fmt.Errorf("read public/%s: %w", layout.ReleaseLogFile, err)
		}
		buf = append(buf, carry...)
		read += end - from
		end = from
		lines := bytes.Split(bytes.TrimRight(buf, "\n"), []byte("\n"))
		carry = nil
		if from > 0 { // the first line may be cut: keep it for the next chunk
			carry, lines = lines[0], lines[1:]
		}
		for i := len(lines) - 1; i >= 0 && len(out) < keep; i-- {
			var e public.LogEntry
			if json.Unmarshal(lines[i], &e) != nil || e.Event != public.EventReleased || seen[e.URL] {
				continue
			}
			seen[e.URL] = true
			out = append(out, e)
		}
	}
	return out, nil
}
