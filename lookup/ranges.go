package lookup

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Range requests on record answers larger than maxVerified (docs/formats.md#lookup-api). An
// answer that fits is held, verified and served with http.ServeContent (spool.finish). A larger
// one cannot be held, and no byte of it may go out as good before the whole record has passed
// its checks, which need every byte of the gzip member (its CRC-32 and size) and of the record
// (its digests). So a request for one range of a large answer reads the record twice, holding
// nothing: first through the checks alone, which also measure the answer (so that a damaged
// record answers 500 before any byte is sent, and a suffix or open range can be resolved), then
// again through the checks while the range's bytes are sent, the last write of the range held
// back until the record's end has passed; if the record fails then (it changed between the two
// readings), the connection is cut and the client holds fewer bytes than Content-Length
// promised. A request for several ranges, with If-Range (record answers have no validators) or
// with a Range that does not parse is answered whole, 200, as RFC 9110 allows a server to
// ignore Range.

// errLargeRange stops the first, held reading of a record answer that outgrows maxVerified when
// one range of it is asked for: serveRange answers instead.
var errLargeRange = errors.New("the answer is too large to hold for a range")

// singleRange reports whether r asks for one byte range in a form serveRange answers: bytes=A-B
// (A ≤ B), bytes=A- or bytes=-N, without If-Range.
func singleRange(r *http.Request) bool {
	v := r.Header.Get("Range")
	if v == "" || r.Header.Get("If-Range") != "" {
		return false
	}
	_, ok := parseByteRange(v)
	return ok
}

// byteRange is one range spec of a Range field.
type byteRange struct {
	first, last int64 // inclusive; last -1 when open (bytes=A-)
	suffix      int64 // bytes=-N: N; -1 for the other forms
}

// parseByteRange reads a Range field of one range spec.
func parseByteRange(v string) (byteRange, bool) {
	spec, found := strings.CutPrefix(v, "bytes=")
	a, b, dash := strings.Cut(strings.TrimSpace(spec), "-")
	num := func(s string) (int64, bool) {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil && s != "" && strings.Trim(s, "0123456789") == ""
	}
	if !found || !dash {
		return byteRange{}, false
	}
	if a == "" {
		n, ok := num(b)
		return byteRange{suffix: n}, ok
	}
	x, ok := num(a)
	if b == "" {
		return byteRange{first: x, last: -1, suffix: -1}, ok
	}
	y, okB := num(b)
	return byteRange{first: x, last: y, suffix: -1}, ok && okB && x <= y
}

// resolve is the bytes [from, to] of an answer of size bytes the range asks for; ok is false
// when none of them is in it (416).
func (br byteRange) resolve(size int64) (from, to int64, ok bool) {
	switch {
	case br.suffix == 0, size == 0:
		return 0, 0, false
	case br.suffix > 0:
		return max(0, size-br.suffix), size - 1, true
	case br.first >= size:
		return 0, 0, false
	case br.last < 0 || br.last >= size:
		return br.first, size - 1, true
	}
	return br.first, br.last, true
}

// surelyLarge reports whether c's answer in format is known to be longer than limit from its
// gzip member's length alone: warc.gz is the member; warc, the record it inflates to, is at
// least the member less deflate's overhead (5 bytes a stored block of 64 KiB, and the gzip
// header and trailer, taken as 1 KiB). A payload's size is known only once read.
func surelyLarge(c *capture, format string, limit int) bool {
	switch format {
	case "warc.gz":
		return c.length > int64(limit)
	case "warc":
		return c.length-c.length/10_000-1<<10 > int64(limit)
	}
	return false
}

// countWriter counts what is written to it.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// serveRange answers one range of c's record answer in format, too large to hold: the first
// reading checks and measures it, the second sends the range while it checks again (above). h
// holds the answer's header fields. Errors are returned only while nothing has been sent.
func (s *Server) serveRange(w http.ResponseWriter, r *http.Request, ra io.ReaderAt, c *capture, format string, h http.Header) error {
	start := time.Now()
	var size countWriter
	if err := s.copyChecked(&size, http.Header{}, ra, c, format); err != nil {
		return err // serveRecord's caller answers 500, before any byte
	}
	out := w.Header()
	for k, v := range h {
		out[k] = v
	}
	br, _ := parseByteRange(r.Header.Get("Range")) // singleRange checked it
	from, to, ok := br.resolve(size.n)
	if !ok {
		out.Del("Content-Disposition")
		out.Set("Content-Range", fmt.Sprintf("bytes */%d", size.n))
		writeError(w, http.StatusRequestedRangeNotSatisfiable, fmt.Sprintf("the range %q is not in the answer of %d bytes", trunc(r.Header.Get("Range"), 80), size.n))
		return nil
	}
	out.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, to, size.n))
	out.Set("Content-Length", strconv.FormatInt(to-from+1, 10))
	w.WriteHeader(http.StatusPartialContent)
	if r.Method == http.MethodHead {
		return nil
	}
	part := &rangeWriter{w: newDeadlineWriter(w, s.opt.WriteStall, start), from: from, to: to}
	err := s.copyChecked(part, http.Header{}, ra, c, format)
	if err == nil && part.pos != size.n {
		err = damaged("the answer is %d bytes now, %d when it was checked a moment before", part.pos, size.n)
	}
	switch {
	case err == nil:
		part.finish()
		return nil
	case errors.Is(err, errClientGone):
		s.log.Debug("range answer cut short by the client", "url", c.url(), "err", err)
		return nil
	}
	if errors.As(err, new(damageError)) {
		s.damaged.Inc()
	}
	s.log.Error("record damaged while a range of it was sent; connection aborted", "url", c.url(), "file", c.file, "offset", c.offset, "err", err)
	panic(http.ErrAbortHandler) // the held-back end of the range never goes out
}

// rangeWriter passes bytes [from, to] of what is written to it on to w and drops the others,
// holding back its last write of the range until finish.
type rangeWriter struct {
	w        io.Writer
	from, to int64
	pos      int64 // bytes written to it so far
	held     []byte
}

func (rw *rangeWriter) Write(p []byte) (int, error) {
	lo, hi := max(rw.from-rw.pos, 0), min(rw.to+1-rw.pos, int64(len(p)))
	rw.pos += int64(len(p))
	if lo >= hi {
		return len(p), nil
	}
	if len(rw.held) > 0 {
		if _, err := rw.w.Write(rw.held); err != nil {
			return 0, fmt.Errorf("%w: %w", errClientGone, err)
		}
	}
	rw.held = append(rw.held[:0], p[lo:hi]...)
	return len(p), nil
}

// finish sends the held-back end of the range.
func (rw *rangeWriter) finish() {
	if len(rw.held) > 0 {
		rw.w.Write(rw.held)
	}
}
