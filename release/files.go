package release

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/archivectl/archivectl/release/public"
	"github.com/archivectl/archivectl/store/durable"
	"github.com/klauspost/compress/gzip"
)

// Public file and directory modes: the public side is world-readable.
const (
	publicDirMode  = 0o755
	publicFileMode = 0o644
)

// warcFile is one public WARC file (with its CDXJ) being written under release-tmp/ before
// the commit renames both into public/. Members are appended; nothing is ever rewritten.
type warcFile struct {
	rel   string // name relative to public/, e.g. "shards/PUBLIC-20261129000000-00001.warc.gz"
	tmp   string // its temp path
	f     *os.File
	bw    *bufio.Writer
	gz    *gzip.Writer
	n     int64    // bytes written so far
	pend  pending  // sealed bytes still to copy, after what bw holds
	lines [][]byte // CDXJ lines, sorted when the file is finished
}

// pending is a byte range of a sealed file that is yet to be copied into a public file. Adjacent
// members (a capture's request, response and metadata; consecutive captures) grow one range, copied
// in the kernel (copy_file_range) when something else must be written or the file is finished.
type pending struct {
	src    *os.File
	off, n int64
}

// createWARCFile opens a temp file for the public file rel.
func createWARCFile(tmpDir, rel string) (*warcFile, error) {
	tmp := filepath.Join(tmpDir, filepath.Base(rel))
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, publicFileMode)
	if err != nil {
		return nil, fmt.Errorf("release: create %s: %w", tmp, err)
	}
	if err := f.Chmod(publicFileMode); err != nil { // whatever the umask
		f.Close()
		return nil, fmt.Errorf("release: %w", err)
	}
	w := &warcFile{rel: rel, tmp: tmp, f: f}
	w.bw = bufio.NewWriterSize(countWriter{w}, 256<<10)
	return w, nil
}

// countWriter counts the bytes that reach the file.
type countWriter struct{ w *warcFile }

// Write writes p to the file and counts it.
func (c countWriter) Write(p []byte) (int, error) {
	n, err := c.w.f.Write(p)
	c.w.n += int64(n)
	return n, err
}

// offset is where the next member starts.
func (w *warcFile) offset() int64 { return w.n + int64(w.bw.Buffered()) + w.pend.n }

// writeRecord compresses one serialised record as a new gzip member and returns its location.
func (w *warcFile) writeRecord(rec []byte) (off, length int64, err error) {
	if err := w.flushPending(); err != nil {
		return 0, 0, err
	}
	off = w.offset()
	if w.gz == nil {
		w.gz, err = gzip.NewWriterLevel(w.bw, gzip.DefaultCompression)
		if err != nil {
			return 0, 0, fmt.Errorf("release: gzip: %w", err)
		}
	} else {
		w.gz.Reset(w.bw)
	}
	if _, err = w.gz.Write(rec); err != nil {
		return 0, 0, fmt.Errorf("release: write %s: %w", w.rel, err)
	}
	if err = w.gz.Close(); err != nil {
		return 0, 0, fmt.Errorf("release: write %s: %w", w.rel, err)
	}
	return off, w.offset() - off, nil
}

// copyRange appends length bytes of src at off (one or more whole sealed gzip members) and returns
// where they start in w.
func (w *warcFile) copyRange(src *os.File, off, length int64) (int64, error) {
	at := w.offset()
	if w.pend.src == src && w.pend.off+w.pend.n == off {
		w.pend.n += length
		return at, nil
	}
	if err := w.flushPending(); err != nil {
		return 0, err
	}
	w.pend = pending{src: src, off: off, n: length}
	return at, nil
}

// flushPending copies the pending sealed range into the file.
func (w *warcFile) flushPending() error {
	p := w.pend
	if p.n == 0 {
		return nil
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("release: write %s: %w", w.rel, err)
	}
	if _, err := p.src.Seek(p.off, io.SeekStart); err != nil {
		return fmt.Errorf("release: read %s: %w", p.src.Name(), err)
	}
	n, err := w.f.ReadFrom(io.LimitReader(p.src, p.n))
	w.n += n
	if err == nil && n != p.n {
		err = fmt.Errorf("%s ends %d bytes into a range of %d at offset %d", p.src.Name(), n, p.n, p.off)
	}
	if err != nil {
		return fmt.Errorf("release: copy into %s: %w", w.rel, err)
	}
	w.pend = pending{}
	return nil
}

// finish makes the WARC file durable and writes its byte-sorted CDXJ beside it; it returns
// the temp → public renames the commit must make (the WARC first, so no CDXJ line ever
// points at a file that is not there yet).
func (w *warcFile) finish() ([]journalFile, error) {
	if err := w.flushPending(); err != nil {
		w.f.Close()
		return nil, err
	}
	if err := w.bw.Flush(); err != nil {
		w.f.Close()
		return nil, fmt.Errorf("release: write %s: %w", w.rel, err)
	}
	if err := durable.SyncClose(w.f); err != nil {
		return nil, fmt.Errorf("release: sync %s: %w", w.rel, err)
	}
	sort.Slice(w.lines, func(i, j int) bool { return bytes.Compare(w.lines[i], w.lines[j]) < 0 })
	cdxTmp := public.CDXJName(w.tmp)
	if err := durable.WriteFile(cdxTmp, bytes.Join(w.lines, nil), publicFileMode); err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	return []journalFile{{Tmp: w.tmp, Public: w.rel}, {Tmp: cdxTmp, Public: public.CDXJName(w.rel)}}, nil
}

// abort closes and deletes the temp file.
func (w *warcFile) abort() {
	w.f.Close()
	os.Remove(w.tmp)
}
