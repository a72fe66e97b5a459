package release

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"

	"github.com/archivectl/archivectl/internal/durable"
)

// appendLog makes the log exactly size bytes long (cutting what an interrupted commit left)
// and appends lines, then fsyncs. Replaying a commit therefore writes the same bytes again.
func appendLog(path string, size int64, lines []byte) error {
	f, err := durable.OpenFile(path, os.O_RDWR|os.O_CREATE, publicFileMode)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if st.Size() < size {
		f.Close()
		return fmt.Errorf("%s is %d bytes, shorter than the %d a commit saw: it was cut by someone; restore it from a backup", path, st.Size(), size)
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(lines); err != nil {
		f.Close()
		return fmt.Errorf("append %s: %w", path, err)
	}
	if err := durable.SyncClose(f); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

// repairLogTail cuts a torn last line (one without its newline: a write cut short) off the audit
// log at path, back to the end of its last complete line, logging what it cut, and returns the
// log's size; a missing log is 0 bytes. Appending after a torn line would fuse it with the next.
func repairLogTail(path string, log *slog.Logger) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	end := size // where the last complete line ends
	buf := make([]byte, 64<<10)
	for end > 0 {
		start := max(end-int64(len(buf)), 0)
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil {
			return 0, fmt.Errorf("read %s: %w", path, err)
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			end = start + int64(i) + 1
			break
		}
		end = start
	}
	if end == size {
		return size, nil
	}
	if err := f.Truncate(end); err != nil {
		return 0, fmt.Errorf("cut the torn last line of %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	log.Warn("audit log: cut a torn last line (a write cut short) back to the last complete line", "file", path,
		"size", size, "cut_to", end, "bytes_cut", size-end)
	return end, nil
}
