package lookup

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/warcrecord"
	"github.com/archivectl/archivectl/public"
)

// handleRecord answers GET /api/v1/record?url=URL[&timestamp=T][&format=F]: the released record
// of a capture (the newest released one without timestamp), as its WARC record ("warc", the
// default), its exact public gzip member ("warc.gz", digests verify) or its HTTP payload as
// archived ("payload"). An embargoed capture answers 451 with its release time; a timestamp that
// matches no capture redirects to the closest released one (memento.go).
func (s *Server) handleRecord(w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	format := r.URL.Query().Get("format")
	switch format {
	case "":
		format = "warc"
	case "warc", "warc.gz", "payload":
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("format %q is unknown; use warc, warc.gz or payload", format))
		return
	}
	ix := s.ix.Load()
	cs, err := ix.exact(q.key)
	if err != nil {
		s.indexFailed(w, err)
		return
	}
	c, err := pick(cs, r.URL.Query().Get("timestamp"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	switch {
	case len(cs) == 0:
		writeError(w, http.StatusNotFound, fmt.Sprintf("%s has never been made public by this archive; check the URL, or list what lies below it with matchType=prefix", q.raw))
		return
	case c == nil:
		s.redirectClosest(w, r, q, cs, r.URL.Query().Get("timestamp"))
		return
	case !c.released: // a released line is public, whatever this server's clock says (docs/formats.md#lookup-api)
		s.blocked(w, r, c, fmt.Sprintf("this capture of %s is under embargo until %s; only its tombstone is public", c.url(), formatTime(c.releaseAt)))
		return
	}
	recordLinks(w, r, cs, c)
	if format == "payload" && c.revisit {
		orig := original(cs, c)
		if orig == nil {
			writeError(w, http.StatusNotFound, fmt.Sprintf("this capture of %s is a revisit and the record it repeats is not public", c.url()))
			return
		}
		c = orig
	}
	if err := s.serveRecord(w, r, c, format); err != nil {
		if errors.Is(err, errBusy) {
			s.log.Debug("record answer refused: the held-bytes budget is full", "url", c.url(), "err", err)
			s.busy(w, "record")
			return
		}
		s.log.Error("record not served", "url", c.url(), "file", c.file, "offset", c.offset, "err", err)
		what := "cannot be read"
		if errors.As(err, new(damageError)) {
			what = "is damaged and is not served"
		}
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("the public record of %s %s (%v); run archivectl verify", c.url(), what, err))
	}
}

// pick returns the capture a record request means: the one at timestamp (14 digits or RFC 3339,
// to the second), or without one the newest released capture, else the newest of all.
func pick(cs []capture, timestamp string) (*capture, error) {
	if timestamp == "" {
		for i := range cs {
			if cs[i].released {
				return &cs[i], nil
			}
		}
		if len(cs) > 0 {
			return &cs[0], nil
		}
		return nil, nil
	}
	t, err := time.Parse(public.Timestamp14, timestamp)
	if err != nil {
		if t, err = time.Parse(time.RFC3339Nano, timestamp); err != nil {
			return nil, fmt.Errorf("timestamp %q is neither 14 digits (YYYYMMDDhhmmss) nor RFC 3339", timestamp)
		}
	}
	want := t.Unix()
	var hit *capture
	for i := range cs {
		if time.Unix(0, cs[i].time).Unix() == want && (hit == nil || cs[i].released && !hit.released) {
			hit = &cs[i]
		}
	}
	return hit, nil
}

// original finds the released record a revisit repeats: same URL key and payload digest.
func original(cs []capture, rev *capture) *capture {
	for i := range cs {
		if c := &cs[i]; c.released && !c.revisit && c.digest() == rev.digest() {
			return c
		}
	}
	return nil
}

// serveRecord answers with a released capture's record in the given format, verified: the gzip
// member must be whole and end exactly at the indexed length, and the WARC record's digests must
// match (checker). A record whose answer fits in maxVerified bytes is checked before its status
// line is sent, so damage answers 500; a larger one is streamed while it is checked, its last
// bytes held back, and on damage the connection is aborted so no client takes it for whole.
// Errors are returned only while nothing has been sent. A Range request is answered (206) from
// the verified bytes of an answer that fits in maxVerified, and from a larger answer as
// serveRange says (ranges.go).
func (s *Server) serveRecord(w http.ResponseWriter, r *http.Request, c *capture, format string) error {
	f, err := s.fsys.Open(c.file)
	if err != nil {
		return fmt.Errorf("open public/%s: %w", c.file, err)
	}
	defer f.Close()
	ra, ok := f.(io.ReaderAt)
	if !ok {
		return fmt.Errorf("public/%s does not allow random access", c.file)
	}
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat public/%s: %w", c.file, err)
	}
	if err := beyondShard(c, fi.Size()); err != nil { // never read towards the end of the file
		s.damaged.Inc()
		return err
	}
	stamp := time.Unix(0, c.time).UTC()
	name := stamp.Format(public.Timestamp14) + "-" + fileSafe(c.url())
	out := &spool{w: newDeadlineWriter(w, s.opt.WriteStall, time.Now()), limit: s.maxVerified, header: http.Header{}, req: r,
		budget: s.held, wait: s.opt.HeldWait}
	defer out.release()
	h := out.header
	h.Set("Memento-Datetime", stamp.Format(http.TimeFormat))
	h.Set("Accept-Ranges", "bytes") // at any size (ranges.go)
	out.ranged = singleRange(r)
	switch format {
	case "warc.gz":
		h.Set("Content-Type", "application/gzip")
		h.Set("Content-Disposition", `attachment; filename="`+name+`.warc.gz"`)
		out.length = c.length
		out.bound = func() int64 { return c.length }
	case "warc":
		h.Set("Content-Type", "application/warc")
		h.Set("Content-Disposition", `attachment; filename="`+name+`.warc"`)
	}
	if out.ranged && surelyLarge(c, format, s.maxVerified) {
		err = errLargeRange // no need to hold the first bytes to know it
	} else {
		err = s.copyChecked(out, h, ra, c, format)
	}
	if errors.Is(err, errLargeRange) && !out.committed {
		out.release()
		if err = s.serveRange(w, r, ra, c, format, h); err == nil {
			return nil
		}
	}
	switch {
	case err == nil:
		out.finish()
		return nil
	case errors.Is(err, errClientGone):
		s.log.Debug("record answer cut short by the client", "url", c.url(), "err", err)
		return nil
	case errors.Is(err, errBusy) && !out.committed:
		return err
	}
	err = fmt.Errorf("public/%s at %d (length %d): %w", c.file, c.offset, c.length, err)
	var d damageError
	if errors.As(err, &d) {
		s.damaged.Inc()
	}
	if out.committed {
		s.log.Error("record damaged while streamed; connection aborted", "url", c.url(), "file", c.file, "offset", c.offset, "err", err)
		panic(http.ErrAbortHandler) // the held-back end never goes out: the answer is visibly cut
	}
	return err
}

// copyChecked reads c's gzip member from ra through a checker and writes the format's bytes to
// out (warc.gz: the member itself, as read), the payload's header fields to h. Whatever happens,
// the record is read to its end: a damageError says the record fails a check; any other error is
// one of a sound record (an archived HTTP response that does not parse) or of reading the file.
func (s *Server) copyChecked(out io.Writer, h http.Header, ra io.ReaderAt, c *capture, format string) error {
	if p, ok := ra.(readPlanner); ok {
		p.WillRead(c.offset, c.length)
	}
	var in io.Reader = io.NewSectionReader(ra, c.offset, c.length)
	if format == "warc.gz" {
		in = io.TeeReader(in, out)
	}
	br := bufio.NewReaderSize(in, 32<<10)
	gz, err := gzip.NewReader(br)
	if err != nil {
		return asDamage(fmt.Errorf("gzip member: %w", err))
	}
	gz.Multistream(false)
	chk := newChecker(c.url())
	if sp, ok := out.(*spool); ok && sp.bound == nil {
		sp.bound = chk.bound
	}
	rd := io.TeeReader(gz, chk)
	var copyErr error
	switch format {
	case "warc.gz":
		_, copyErr = io.Copy(io.Discard, rd)
	case "warc":
		_, copyErr = io.Copy(out, rd)
	case "payload":
		copyErr = copyPayload(out, h, rd)
	}
	if errors.Is(copyErr, errClientGone) || errors.Is(copyErr, errBusy) || errors.Is(copyErr, errLargeRange) {
		return copyErr // nobody left to answer, or no room to hold the answer: read no further
	}
	if _, err := io.Copy(io.Discard, rd); err != nil { // the rest of the record, to its gzip trailer
		return asDamage(err)
	}
	if extra, err := io.Copy(io.Discard, br); err != nil {
		return asDamage(err)
	} else if extra > 0 {
		return damaged("the indexed length runs %d bytes past the gzip member", extra)
	}
	if err := chk.finish(); err != nil {
		return err
	}
	if copyErr != nil {
		return fmt.Errorf("the record is sound but its payload cannot be read: %w", copyErr)
	}
	return nil
}

// copyPayload writes the HTTP payload of the record read from rd to out, its header fields to h.
func copyPayload(out io.Writer, h http.Header, rd io.Reader) error {
	p, err := readPayload(rd)
	if err != nil {
		return err
	}
	defer p.body.Close()
	for _, k := range []string{"Content-Type", "Content-Encoding", "Content-Language"} {
		if v := p.header.Get(k); v != "" {
			h.Set(k, v)
		}
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/octet-stream")
	}
	// The archived payload is someone else's content: render it in a sandbox, scripts off, nothing loaded.
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'; style-src 'unsafe-inline'")
	h.Set("X-Archive-Status", strconv.Itoa(p.status))
	_, err = io.Copy(out, p.body)
	return err
}

// readPlanner is a file that reads better when told which bytes will be read: a record in an
// object store (objectstore/mirror) fetches them in one ranged GET.
type readPlanner interface{ WillRead(off, n int64) }

// asDamage turns a read error of the member into a damageError: gzip's checksum and format
// errors, a member cut short, and the checker's own errors all mean the bytes on disk are wrong.
// Errors of the file system and of the client stay what they are.
func asDamage(err error) error {
	var d damageError
	var pe *fs.PathError
	if errors.As(err, &d) || errors.As(err, &pe) || errors.Is(err, errClientGone) || errors.Is(err, errBusy) || errors.Is(err, errLargeRange) {
		return err
	}
	return damageError{err}
}

// errClientGone stops reading a record once the client of a committed answer has gone away.
var errClientGone = errors.New("the client went away")

// fileSafe turns a URL into a file-name fragment.
func fileSafe(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	b := []byte(u)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 100 {
		b = b[:100]
	}
	return string(b)
}

// payload is the HTTP payload of a WARC response record, or the block of a resource record.
type payload struct {
	target string
	status int
	header http.Header
	body   io.ReadCloser
}

// readPayload reads a decompressed WARC response record up to its HTTP payload: the WARC header
// block, then the HTTP response head (chunked transfer coding undone, content coding kept as sent).
// Of a resource record (a page's snapshot), the payload is its block.
func readPayload(r io.Reader) (payload, error) {
	var p payload
	br := bufio.NewReader(io.LimitReader(r, 1<<40))
	wh, err := warcrecord.ReadHeader(br)
	if err != nil {
		return p, err
	}
	t, ct := wh.Get("WARC-Type"), wh.Get("Content-Type")
	if t != "response" && t != "resource" {
		return p, fmt.Errorf("record is a %q, not a response", t)
	}
	if t == "response" && !strings.HasPrefix(ct, "application/http") {
		return p, fmt.Errorf("record block is %q, not application/http", ct)
	}
	n, err := strconv.ParseInt(wh.Get("Content-Length"), 10, 64)
	if err != nil || n < 0 {
		return p, fmt.Errorf("record Content-Length %q is not a length", wh.Get("Content-Length"))
	}
	p.target = strings.Trim(wh.Get("WARC-Target-URI"), "<>")
	if t == "resource" { // a page's snapshot: the block is the payload, of the record's Content-Type
		p.status, p.header, p.body = http.StatusOK, http.Header{"Content-Type": {ct}}, io.NopCloser(io.LimitReader(br, n))
		return p, nil
	}
	resp, err := http.ReadResponse(bufio.NewReader(io.LimitReader(br, n)), nil)
	if err != nil {
		return p, fmt.Errorf("HTTP response in record: %w", err)
	}
	p.status, p.header, p.body = resp.StatusCode, resp.Header, resp.Body
	return p, nil
}

// trunc shortens s to n bytes for an error message.
func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
