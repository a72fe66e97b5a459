package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/archivectl/archivectl/internal/oneline"
	"github.com/archivectl/archivectl/internal/warcrecord"
	"github.com/nlnwa/gowarc/v3"
)

// strictReading are the reader options for the sealed repository: a syntax error or a spec
// violation (wrong digest, wrong Content-Length) is an error, never a warning or a resync.
func strictReading() []gowarc.WarcRecordOption {
	return []gowarc.WarcRecordOption{
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail),
		gowarc.WithSpecViolationPolicy(gowarc.ErrFail),
		gowarc.WithUnknownRecordTypePolicy(gowarc.ErrFail),
	}
}

// newStrictReader is gowarc's stream reader with strict options, built under gowarcMu.
func newStrictReader(r io.Reader, off int64) (*gowarc.WarcFileReader, error) {
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	return gowarc.NewWarcFileReaderFromStream(r, off, strictReading()...)
}

// ReadRecord reads the one record whose gzip member lies at [off, off+length) of r. It is strict:
// the bytes must be exactly one gzip member holding one WARC record without syntax errors or spec
// violations, and its block and payload digests must verify. The caller closes the record.
func ReadRecord(r io.ReaderAt, off, length int64) (gowarc.WarcRecord, error) {
	if off < 0 || length <= 0 {
		return nil, fmt.Errorf("read record at %d+%d: bad location", off, length)
	}
	var magic [2]byte
	if _, err := r.ReadAt(magic[:], off); err != nil {
		return nil, fmt.Errorf("read record at %d: %w", off, err)
	}
	if magic != [2]byte{0x1f, 0x8b} {
		return nil, fmt.Errorf("read record at %d: not the start of a gzip member", off)
	}
	rd, err := newStrictReader(io.NewSectionReader(r, off, length), 0)
	if err != nil {
		return nil, fmt.Errorf("read record at %d: %w", off, err)
	}
	defer rd.Close()
	rec, err := rd.Next()
	if err != nil {
		rec.Close()
		return nil, fmt.Errorf("read record at %d: %w", off, err)
	}
	if rec.Offset != 0 || rec.Size != length {
		rec.Close()
		return nil, fmt.Errorf("read record at %d: the member is %d bytes, the location says %d", off, rec.Size, length)
	}
	if err := checkOwnPayloadDigest(rec.WarcRecord); err != nil {
		rec.Close()
		return nil, fmt.Errorf("read record at %d: %w", off, err)
	}
	return rec.WarcRecord, nil
}

// checkOwnPayloadDigest verifies the WARC-Payload-Digest that gowarc does not check: the one this
// store puts on warcinfo and metadata records, the digest of the whole block.
func checkOwnPayloadDigest(rec gowarc.WarcRecord) error {
	if rec.Type() != gowarc.Warcinfo && rec.Type() != gowarc.Metadata {
		return nil
	}
	want := rec.WarcHeader().Get(gowarc.WarcPayloadDigest)
	if want == "" {
		return nil
	}
	body, err := blockBytes(rec)
	if err != nil {
		return err
	}
	alg, h, err := warcrecord.NewHash(want)
	if err != nil {
		return fmt.Errorf("%s: %w", gowarc.WarcPayloadDigest, err)
	}
	h.Write(body)
	if sum := h.Sum(nil); !warcrecord.Matches(want, sum) {
		return &gowarc.DigestError{Algorithm: alg, Expected: want, Computed: warcrecord.Format(alg, sum)}
	}
	return nil
}

// blockBytes is a record's whole block; the block must be cached (strict reading caches it).
func blockBytes(rec gowarc.WarcRecord) ([]byte, error) {
	rb, err := rec.Block().RawBytes()
	if err != nil {
		return nil, err
	}
	return io.ReadAll(rb)
}

// OpenSealed opens the sealed WARC file name (a final name, as locations give it) in sealedDir, or
// NAME.open while it is still being written, trying the final name again in case it was renamed
// meanwhile. It is the one place that knows about .open files for readers; the caller closes the file.
func OpenSealed(sealedDir, name string) (*os.File, error) {
	if name == "" || name != filepath.Base(name) || strings.HasSuffix(name, openSuffix) {
		return nil, fmt.Errorf("bad WARC file name %q", name)
	}
	p := filepath.Join(sealedDir, name)
	for _, q := range []string{p, p + openSuffix, p} {
		f, err := os.Open(q)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("sealed WARC file %s: %w", name, fs.ErrNotExist)
}

// member is an open file cut to one gzip member.
type member struct {
	*io.SectionReader
	f *os.File
}

func (m member) Close() error { return m.f.Close() }

// MemberReader returns the raw bytes of the gzip member at loc, for copying it byte for byte into
// a public shard. The file may still be NAME.open. The caller closes the reader.
func MemberReader(sealedDir string, loc Location) (io.ReadCloser, error) {
	f, err := OpenSealed(sealedDir, loc.File)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if loc.Offset < 0 || loc.Length <= 0 || loc.Offset+loc.Length > st.Size() {
		f.Close()
		return nil, fmt.Errorf("%s: member %d+%d lies outside the file (%d bytes)", loc.File, loc.Offset, loc.Length, st.Size())
	}
	return member{SectionReader: io.NewSectionReader(f, loc.Offset, loc.Length), f: f}, nil
}

// ReadAt reads the record at loc from the sealed repository, strictly (see ReadRecord).
func ReadAt(sealedDir string, loc Location) (gowarc.WarcRecord, error) {
	f, err := OpenSealed(sealedDir, loc.File)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rec, err := ReadRecord(f, loc.Offset, loc.Length)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc.File, err)
	}
	return rec, nil
}

// ScanFile calls fn for each record of one WARC file, in order, with its location (File is the
// final name, without .open). Reading is strict; the first bad record stops the scan with an
// error that wraps a *ScanError giving the offset where valid data ends.
func ScanFile(path string, fn func(loc Location, rec gowarc.WarcRecord) error) error {
	return scanFile(path, fn, nil)
}

// Damage is a stretch of a WARC file that holds no readable record: a record that fails strict
// reading, up to the next gzip member that reads.
type Damage struct {
	File   string // the final name, without .open
	Offset int64  // where the damaged record starts: the end of the last readable record before it
	End    int64  // where the next readable record starts, or the file's size
	Err    error  // why the record at Offset does not read
}

// Reason is Err's message on one line.
func (d Damage) Reason() string { return oneline.Of(d.Err) }

// ScanFileResync is ScanFile that goes on past a bad record: it calls damaged with the stretch that
// holds no readable record and resynchronises at the next gzip member header (1f 8b 08; every
// record is one gzip member, docs/formats.md) that starts a strictly readable record, so one bad
// byte costs the one record that holds it. An error from fn or damaged stops the scan.
func ScanFileResync(path string, fn func(loc Location, rec gowarc.WarcRecord) error, damaged func(Damage) error) error {
	return scanFile(path, fn, damaged)
}

// scanFile is ScanFile, resynchronising after a bad record when damaged is not nil.
func scanFile(path string, fn func(loc Location, rec gowarc.WarcRecord) error, damaged func(Damage) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	name := strings.TrimSuffix(filepath.Base(path), openSuffix)
	src := io.NewSectionReader(f, 0, st.Size()) // no Close: each reader below would close f
	for pos := int64(0); ; {
		end, bad, err := scanFrom(src, pos, name, fn)
		if err != nil || bad == nil {
			return err
		}
		if damaged == nil {
			return &ScanError{File: name, ValidEnd: end, Err: bad}
		}
		next, err := resync(src, end+1)
		if err != nil {
			return err
		}
		if next < 0 {
			return damaged(Damage{File: name, Offset: end, End: st.Size(), Err: bad})
		}
		if err := damaged(Damage{File: name, Offset: end, End: next, Err: bad}); err != nil {
			return err
		}
		pos = next
	}
}

// scanFrom calls fn for each record of src from the record at pos on, until the end of src
// (bad == nil) or a bad record, whose error is bad; end is where the last good record ends.
// err is fn's error, or failing to read at all.
func scanFrom(src io.ReadSeeker, pos int64, name string, fn func(loc Location, rec gowarc.WarcRecord) error) (end int64, bad, err error) {
	rd, err := newStrictReader(src, pos)
	if err != nil {
		return pos, nil, err
	}
	defer rd.Close()
	end = pos
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return end, nil, nil
		}
		if err == nil {
			err = checkOwnPayloadDigest(rec.WarcRecord)
		}
		if err == nil && rec.Offset != end {
			err = fmt.Errorf("record found at %d, expected at %d", rec.Offset, end)
		}
		if err != nil {
			rec.Close()
			return end, err, nil
		}
		end = rec.Offset + rec.Size
		err = fn(Location{File: name, Offset: rec.Offset, Length: rec.Size}, rec.WarcRecord)
		rec.Close()
		if err != nil {
			return end, nil, err
		}
	}
}

// gzipMember is how every gzip member starts: the magic bytes and the deflate method.
var gzipMember = []byte{0x1f, 0x8b, 0x08}

// resync is the offset, at or after from, of the first gzip member header that starts a record
// ReadRecord would accept (whatever its length), or -1 when there is none.
func resync(src *io.SectionReader, from int64) (int64, error) {
	size := src.Size()
	buf := make([]byte, 64<<10)
	for off := from; off+int64(len(gzipMember)) <= size; {
		n, err := src.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if err != nil && err != io.EOF {
			return 0, err
		}
		i := bytes.Index(buf[:n], gzipMember)
		if i < 0 {
			off += int64(n - len(gzipMember) + 1) // a header may straddle two reads
			continue
		}
		if readable(src, off+int64(i)) {
			return off + int64(i), nil
		}
		off += int64(i) + 1
	}
	return -1, nil
}

// readable reports whether a strictly valid record starts at off.
func readable(src io.ReadSeeker, off int64) bool {
	ok := false
	_, bad, err := scanFrom(src, off, "", func(loc Location, _ gowarc.WarcRecord) error {
		ok = loc.Offset == off
		return errStop // one record is enough
	})
	return ok && bad == nil && errors.Is(err, errStop)
}

// ScanError is where a file stops holding valid records.
type ScanError struct {
	File     string
	ValidEnd int64 // the end of the last valid record
	Err      error
}

func (e *ScanError) Error() string {
	return fmt.Sprintf("%s: bad record after offset %d: %v", e.File, e.ValidEnd, e.Err)
}

func (e *ScanError) Unwrap() error { return e.Err }
