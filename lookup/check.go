package lookup

import (
	"bufio"
	"bytes"
	"fmt"
	"hash"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/archivectl/archivectl/internal/warcrecord"
)

// damageError is a public record that fails its checks: the bytes on disk are not the record
// its index line describes, so none of them may be served.
type damageError struct{ err error }

func (e damageError) Error() string { return e.err.Error() }
func (e damageError) Unwrap() error { return e.err }

// damaged wraps a failed check as a damageError.
func damaged(format string, args ...any) error { return damageError{fmt.Errorf(format, args...)} }

// Where a checker is in the record.
const (
	inHeader = iota
	inBlock
	inTrailer
)

// recordEnd ends every WARC record after its block.
const recordEnd = "\r\n\r\n"

// checker verifies one decompressed WARC record as its bytes are written to it: the version line
// and header fields, that WARC-Target-URI is the capture's URL, Content-Length, the
// WARC-Block-Digest, the WARC-Payload-Digest where it can be computed from the block (not for a
// revisit, whose payload digest is its original's), and that the record ends with CRLF CRLF and
// nothing after. Write fails at the first problem; finish reports whether the whole record was seen
// and every digest matched.
type checker struct {
	target  string // the URL the record must be of
	state   int
	head    []byte // the header block, until its blank line
	header  textproto.MIMEHeader
	length  int64 // the block's Content-Length
	headLen int   // bytes of the header block, once read
	seen    int64 // block bytes written so far
	block   hash.Hash
	want    string // WARC-Block-Digest
	// The payload digest, when it applies: for an application/http block, of the bytes after the
	// HTTP head (up to and including the first line shorter than three bytes with its LF, as the
	// store delimits it); otherwise of the whole block.
	payload     hash.Hash
	wantPayload string
	inHTTPHead  bool
	lineLen     int   // bytes of the current HTTP head line so far
	trailer     int   // bytes of recordEnd seen
	err         error // the first problem: every later Write and finish return it
}

// newChecker returns a checker for a record of target.
func newChecker(target string) *checker { return &checker{target: target} }

// Write checks the next bytes of the record.
func (c *checker) Write(p []byte) (int, error) {
	if c.err == nil {
		c.err = c.write(p)
	}
	if c.err != nil {
		return 0, c.err
	}
	return len(p), nil
}

// write checks p.
func (c *checker) write(p []byte) error {
	for len(p) > 0 {
		switch c.state {
		case inHeader:
			from := max(0, len(c.head)-3)
			c.head = append(c.head, p...)
			p = nil
			i := bytes.Index(c.head[from:], []byte(recordEnd))
			if i < 0 {
				if len(c.head) > warcrecord.MaxHeader {
					return damaged("WARC header longer than %d bytes", warcrecord.MaxHeader)
				}
				continue
			}
			end := from + i + len(recordEnd)
			p = c.head[end:]
			if err := c.startBlock(c.head[:end]); err != nil {
				return err
			}
		case inBlock:
			k := min(int64(len(p)), c.length-c.seen)
			c.blockBytes(p[:k])
			p = p[k:]
			if c.seen += k; c.seen == c.length {
				c.state = inTrailer
			}
		case inTrailer:
			for len(p) > 0 {
				if c.trailer == len(recordEnd) {
					return damaged("%d bytes follow the record's end", len(p))
				}
				if p[0] != recordEnd[c.trailer] {
					return damaged("the record does not end with CRLF CRLF after its %d-byte block", c.length)
				}
				c.trailer++
				p = p[1:]
			}
		}
	}
	return nil
}

// startBlock parses the header block and sets up the digests.
func (c *checker) startBlock(head []byte) error {
	h, err := warcrecord.ReadHeader(bufio.NewReader(bytes.NewReader(head)))
	if err != nil {
		return damaged("%w", err)
	}
	c.header, c.headLen = h, len(head)
	if got := strings.Trim(h.Get("WARC-Target-URI"), "<>"); got != c.target {
		return damaged("the record is of %q, not %q", trunc(got, 200), c.target)
	}
	n, lerr := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if lerr != nil || n < 0 {
		return damaged("record Content-Length %q is not a length", h.Get("Content-Length"))
	}
	c.length = n
	c.want = h.Get("WARC-Block-Digest")
	if _, c.block, err = warcrecord.NewHash(c.want); err != nil {
		return damaged("WARC-Block-Digest: %w", err)
	}
	if c.wantPayload = h.Get("WARC-Payload-Digest"); c.wantPayload != "" && h.Get("WARC-Type") != "revisit" {
		if _, c.payload, err = warcrecord.NewHash(c.wantPayload); err != nil {
			return damaged("WARC-Payload-Digest: %w", err)
		}
		c.inHTTPHead = strings.HasPrefix(h.Get("Content-Type"), "application/http")
	}
	c.state = inBlock
	if n == 0 {
		c.state = inTrailer
	}
	return nil
}

// bound is the most bytes the whole record can have, once its header is read (0 before): the
// header block, the block's Content-Length and the closing CRLF CRLF. Its payload is shorter.
func (c *checker) bound() int64 {
	if c.state == inHeader || c.err != nil {
		return 0
	}
	return int64(c.headLen) + c.length + int64(len(recordEnd))
}

// blockBytes adds block bytes to the digests.
func (c *checker) blockBytes(p []byte) {
	c.block.Write(p)
	if c.payload == nil {
		return
	}
	for c.inHTTPHead && len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.lineLen += len(p)
			return
		}
		short := c.lineLen+i+1 < 3
		c.lineLen = 0
		p = p[i+1:]
		if short {
			c.inHTTPHead = false
		}
	}
	c.payload.Write(p)
}

// finish reports whether a whole record was written and its digests match.
func (c *checker) finish() error {
	switch {
	case c.err != nil:
		return c.err
	case c.state == inHeader:
		return damaged("the record ends inside its WARC header")
	case c.state == inBlock:
		return damaged("the record ends after %d of its %d block bytes", c.seen, c.length)
	case c.trailer < len(recordEnd):
		return damaged("the record ends without CRLF CRLF after its block")
	case !warcrecord.Matches(c.want, c.block.Sum(nil)):
		return damaged("WARC-Block-Digest %s does not match the block", c.want)
	case c.payload != nil && !c.inHTTPHead && !warcrecord.Matches(c.wantPayload, c.payload.Sum(nil)):
		return damaged("WARC-Payload-Digest %s does not match the payload", c.wantPayload)
	}
	return nil
}
