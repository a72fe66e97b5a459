package release

import (
	"fmt"
	"io"
	"os"

	"github.com/archivectl/archivectl/internal/durable"
)

// appendLog makes the log exactly size bytes long (cutting what an interrupted commit left)
// and appends lines, then fsyncs. Replaying a commit therefore writes the same bytes again.
func appendLog(path string, size int64, lines []byte) error {
	f, err := durable.OpenFile(path, os.O_RDWR|os.O_CREATE, publicFileMode)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	st, err := f.Stat()
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
