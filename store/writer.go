package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

// openSuffix marks a WARC file that is still being written.
const openSuffix = ".open"

// DefaultMaxFileSize is the default rotation size of sealed WARC files.
const DefaultMaxFileSize = 1 << 30

// encoder turns records into gzip members, one member per record.
type encoder struct {
	gz  *gzip.Writer
	hdr []byte // the header of the record being compressed
}

func newEncoder() *encoder {
	gz, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression) // a valid level never fails
	return &encoder{gz: gz}
}

// crlfcrlf ends a record.
var crlfcrlf = []byte("\r\n\r\n")

// encode appends one gzip member per record to dst and returns each member's length.
func (e *encoder) encode(dst *bytes.Buffer, recs ...*record) ([]int64, error) {
	lens := make([]int64, len(recs))
	for i, r := range recs {
		start := dst.Len()
		e.hdr = r.appendHeader(e.hdr[:0])
		if err := e.member(dst, e.hdr, r.block, crlfcrlf); err != nil {
			dst.Truncate(start)
			return nil, fmt.Errorf("encode %s record: %w", r.get(gowarc.WarcType), err)
		}
		lens[i] = int64(dst.Len() - start)
	}
	return lens, nil
}

// member appends the parts, compressed as one gzip member, to dst.
func (e *encoder) member(dst *bytes.Buffer, parts ...[]byte) error {
	e.gz.Reset(dst)
	for _, p := range parts {
		if _, err := e.gz.Write(p); err != nil {
			return err
		}
	}
	return e.gz.Close()
}

// writebackChunk is how many appended bytes make the writer start their writeback: the disk writes
// a batch while later members are still being compressed, and the batch's sync mostly waits for
// the journal alone.
const writebackChunk = 1 << 20

// warcWriter appends gzip members to rotating WARC files in one directory. Files are created as
// NAME.open and renamed to NAME (IIPC style prefix-timestamp-serial-host.warc.gz) when closed;
// each starts with a warcinfo record. It is not safe for concurrent use.
type warcWriter struct {
	dir      string
	prefix   string
	host     string
	max      int64
	now      func() time.Time
	warcinfo func(name string) (gowarc.WarcRecord, error)

	serial  int
	f       *os.File  // nil when no file is open
	name    string    // final name of the open file
	size    int64     // bytes of complete members in the open file
	started int64     // bytes of the open file whose writeback has been started
	infoLen int64     // bytes of the open file's warcinfo member
	retired []retired // files filled by the batch being written, kept NAME.open until it commits
	noSync  bool      // startSync does nothing (Options.BulkLoad)
}

// retired is a full file set aside until the batch that filled it is committed to the index.
type retired struct {
	f    *os.File
	name string
}

func newWarcWriter(dir, prefix string, max int64, now func() time.Time, warcinfo func(string) (gowarc.WarcRecord, error)) *warcWriter {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	host = strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, host)
	if max <= 0 {
		max = DefaultMaxFileSize
	}
	return &warcWriter{dir: dir, prefix: prefix, host: host, max: max, now: now, warcinfo: warcinfo}
}

// appendMembers writes the encoded members in buf as one unit: it rotates first when the open file
// already holds records and buf would take it past the maximum size. On a failed write the file is
// cut back to where it was, so it and later offsets stay valid. It returns the file and offset of buf.
func (w *warcWriter) appendMembers(buf []byte) (file string, off int64, err error) {
	if w.f != nil && w.size > w.infoLen && w.size+int64(len(buf)) > w.max {
		if err := w.retire(); err != nil {
			return "", 0, err
		}
	}
	if w.f == nil {
		if err := w.create(); err != nil {
			return "", 0, err
		}
	}
	off = w.size
	if _, err := w.f.WriteAt(buf, off); err != nil {
		if terr := w.f.Truncate(off); terr != nil {
			// The file can no longer be trusted: leave it for recovery and start a new one.
			w.f.Close()
			w.f = nil
			return "", 0, fmt.Errorf("write %s: %w (and cutting it back failed: %v; it is left for recovery)", w.name, err, terr)
		}
		return "", 0, fmt.Errorf("write %s: %w", w.name, err)
	}
	w.size += int64(len(buf))
	if w.size-w.started >= writebackChunk {
		durable.StartWriteback(w.f, w.started, w.size-w.started)
		w.started = w.size
	}
	return w.name, off, nil
}

// create opens a new NAME.open file and writes its warcinfo record.
func (w *warcWriter) create() error {
	for tries := 0; ; tries++ {
		w.serial++
		name := fmt.Sprintf("%s-%s-%05d-%s.warc.gz", w.prefix, w.now().UTC().Format("20060102150405000"), w.serial, w.host)
		if _, err := os.Stat(filepath.Join(w.dir, name)); err == nil {
			continue
		}
		f, err := os.OpenFile(filepath.Join(w.dir, name+openSuffix), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && tries < 1000 {
			continue
		}
		if err != nil {
			return fmt.Errorf("create WARC file: %w", err)
		}
		w.f, w.name, w.size = f, name, 0
		break
	}
	var buf bytes.Buffer
	info, err := w.warcinfo(w.name)
	if err == nil {
		var raw bytes.Buffer
		if _, _, err = gowarc.NewMarshaler().Marshal(&raw, info, 0); err == nil {
			err = newEncoder().member(&buf, raw.Bytes())
		}
		info.Close()
	}
	if err == nil {
		_, err = w.f.WriteAt(buf.Bytes(), 0)
	}
	if err == nil {
		err = durable.SyncDir(w.dir)
	}
	if err != nil {
		w.f.Close()
		os.Remove(filepath.Join(w.dir, w.name+openSuffix))
		w.f = nil
		return fmt.Errorf("start WARC file %s: %w", w.name, err)
	}
	w.size = int64(buf.Len())
	w.infoLen, w.started = w.size, 0
	return nil
}

// startSync starts making everything written to the open file durable, on a goroutine of its own,
// and returns where the result will come.
func (w *warcWriter) startSync() <-chan error {
	done := make(chan error, 1)
	f, name := w.f, w.name
	if f == nil || w.noSync {
		done <- nil
		return done
	}
	go func() {
		if err := f.Sync(); err != nil {
			done <- fmt.Errorf("sync %s: %w", name, err)
			return
		}
		done <- nil
	}()
	return done
}

// truncate cuts the open file back to size (size ≥ its warcinfo), undoing an uncommitted batch.
func (w *warcWriter) truncate(file string, size int64) error {
	if w.f == nil || file != w.name || size > w.size || size < w.infoLen {
		return nil
	}
	if err := w.f.Truncate(size); err != nil {
		return fmt.Errorf("cut back %s: %w", w.name, err)
	}
	w.size, w.started = size, min(w.started, size)
	return nil
}

// retire syncs the open file and sets it aside, still NAME.open, until finishRetired: renamed
// before the index commit, a file could hold records that a kill leaves unindexed, beyond the
// reach of recovery, which repairs only .open files (cutting them back to what the index holds).
func (w *warcWriter) retire() error {
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", w.name, err)
	}
	w.retired = append(w.retired, retired{f: w.f, name: w.name})
	w.f = nil
	return nil
}

// finishRetired closes and renames the files retired by the batch just committed.
func (w *warcWriter) finishRetired() error {
	var err error
	for _, r := range w.retired {
		err = errors.Join(err, r.f.Close(), finishFile(w.dir, r.name))
	}
	w.retired = nil
	return err
}

// dropRetired undoes the retired files of a failed batch: the file it started in is cut back to
// startSize and finished; files it filled alone are removed.
func (w *warcWriter) dropRetired(startFile string, startSize int64) error {
	var err error
	for _, r := range w.retired {
		if r.name == startFile {
			err = errors.Join(err, r.f.Truncate(startSize), r.f.Sync(), r.f.Close(), finishFile(w.dir, r.name))
			continue
		}
		err = errors.Join(err, r.f.Close(), os.Remove(filepath.Join(w.dir, r.name+openSuffix)))
	}
	w.retired = nil
	return err
}

// closeFile syncs the open file, closes it and renames NAME.open to NAME.
func (w *warcWriter) closeFile() error {
	if w.f == nil {
		return nil
	}
	f, name := w.f, w.name
	w.f = nil
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", name, err)
	}
	return finishFile(w.dir, name)
}

// finishFile renames NAME.open to NAME and makes the rename durable.
func finishFile(dir, name string) error {
	if err := durable.Rename(filepath.Join(dir, name+openSuffix), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("close WARC file: %w", err)
	}
	return nil
}
