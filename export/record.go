package export

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"github.com/archivectl/archivectl/internal/warcrecord"
	"github.com/archivectl/archivectl/public"
)

// Limits on what is read of one record.
const (
	maxHTTPHead = 1 << 20   // a response's HTTP head
	maxTitleRaw = 512 << 10 // the start of an HTML payload kept to find its <title>
)

// files opens the public directory's WARC files for reading at offsets, each once.
type files struct {
	fsys fs.FS
	open map[string]fs.File
}

func newFiles(fsys fs.FS) *files { return &files{fsys: fsys, open: map[string]fs.File{}} }

// at returns the public file name (relative to public/) as an io.ReaderAt.
func (fl *files) at(name string) (io.ReaderAt, error) {
	f, ok := fl.open[name]
	if !ok {
		var err error
		if f, err = fl.fsys.Open(name); err != nil {
			return nil, fmt.Errorf("read public/%s: %w", name, err)
		}
		fl.open[name] = f
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		return nil, fmt.Errorf("read public/%s: the file cannot be read at an offset", name)
	}
	return ra, nil
}

// section is the byte range loc of its file.
func (fl *files) section(loc public.Location) (*io.SectionReader, error) {
	ra, err := fl.at(loc.File)
	if err != nil {
		return nil, err
	}
	return io.NewSectionReader(ra, loc.Offset, loc.Length), nil
}

// close closes every file opened.
func (fl *files) close() {
	for _, f := range fl.open {
		f.Close()
	}
	clear(fl.open)
}

// record is what an export reads from a response or revisit member.
type record struct {
	Type, ID      string // WARC-Type, WARC-Record-ID
	PayloadDigest string // WARC-Payload-Digest as written
	SHA1          string // response records: SHA-1 of the payload, base32 (checked against PayloadDigest first)
	head          []byte // response records: the HTTP head, blank line included
	start         []byte // response records, when asked: the first bytes of the payload
}

// readRecord reads the record of the gzip member at loc: its WARC header, and for a response its
// HTTP head and payload, whose digest it checks against WARC-Payload-Digest. The payload is the
// block after the head (up to and including the first line shorter than three bytes), as the
// store digests it. keepStart keeps the payload's first bytes, to find a page's title.
func (fl *files) readRecord(loc public.Location, keepStart bool) (rec record, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("public/%s at %d: %w", loc.File, loc.Offset, err)
		}
	}()
	sr, err := fl.section(loc)
	if err != nil {
		return rec, err
	}
	zr, err := gzip.NewReader(sr)
	if err != nil {
		return rec, fmt.Errorf("not a gzip member: %w", err)
	}
	zr.Multistream(false)
	br := bufio.NewReaderSize(zr, 32<<10)
	h, err := warcrecord.ReadHeader(br)
	if err != nil {
		return rec, err
	}
	rec.Type, rec.ID, rec.PayloadDigest = h.Get("WARC-Type"), h.Get("WARC-Record-ID"), h.Get("WARC-Payload-Digest")
	n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil || n < 0 {
		return rec, fmt.Errorf("Content-Length %q", h.Get("Content-Length"))
	}
	if rec.Type != "response" {
		return rec, nil
	}
	if rec.head, err = readHTTPHead(br, n); err != nil {
		return rec, err
	}
	block := &io.LimitedReader{R: br, N: n - int64(len(rec.head))}
	s1 := sha1.New()
	w := io.Writer(s1)
	alg, own, noDigest := warcrecord.NewHash(rec.PayloadDigest) // absent or unknown: not checked
	if noDigest == nil {
		w = io.MultiWriter(s1, own)
	}
	var start bytes.Buffer
	if keepStart {
		w = io.MultiWriter(w, &capped{buf: &start, max: maxTitleRaw})
	}
	if _, err := io.Copy(w, block); err != nil {
		return rec, fmt.Errorf("payload: %w", err)
	}
	if block.N != 0 {
		return rec, fmt.Errorf("the block ends %d bytes before its Content-Length", block.N)
	}
	if noDigest == nil && !warcrecord.Matches(rec.PayloadDigest, own.Sum(nil)) {
		return rec, fmt.Errorf("payload digest %s, WARC-Payload-Digest says %s", warcrecord.Format(alg, own.Sum(nil)), rec.PayloadDigest)
	}
	rec.SHA1 = base32.StdEncoding.EncodeToString(s1.Sum(nil))
	rec.start = start.Bytes()
	return rec, nil
}

// readHTTPHead reads an HTTP message's head from the start of a record block of n bytes: every
// line up to and including the first one shorter than three bytes. A block without such a line
// is all head.
func readHTTPHead(br *bufio.Reader, n int64) ([]byte, error) {
	var head []byte
	lineLen := 0
	for int64(len(head)) < n {
		frag, err := br.ReadSlice('\n')
		head = append(head, frag...)
		lineLen += len(frag)
		switch {
		case int64(len(head)) >= n:
			return head[:n], nil
		case len(head) > maxHTTPHead:
			return nil, errors.New("HTTP head over 1 MiB")
		case err == nil && lineLen < 3:
			return head, nil
		case err == nil:
			lineLen = 0
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, fmt.Errorf("HTTP head: %w", err)
		}
	}
	return head, nil
}

// capped keeps the first max bytes written to it and discards the rest.
type capped struct {
	buf *bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
