package lookup

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// spool holds an answer until it is verified: up to limit bytes are kept and sent with their
// status line by finish; beyond that the status line goes out and bytes are passed on, always
// holding back the last write, which only finish sends.
type spool struct {
	w         http.ResponseWriter
	limit     int
	header    http.Header // the answer's header fields, set on commit
	length    int64       // Content-Length of a committed answer when known in advance; 0 if not
	buf       []byte
	committed bool
	req       *http.Request // the request: a Range in it is answered from a held answer
}

// Write keeps p, or sends what it held before.
func (s *spool) Write(p []byte) (int, error) {
	if !s.committed && len(s.buf)+len(p) <= s.limit {
		s.buf = append(s.buf, p...)
		return len(p), nil
	}
	if !s.committed {
		s.commit(s.length)
	}
	if len(s.buf) > 0 {
		if _, err := s.w.Write(s.buf); err != nil {
			return 0, fmt.Errorf("%w: %w", errClientGone, err)
		}
	}
	s.buf = append(s.buf[:0], p...)
	return len(p), nil
}

// commit sends the status line and header fields.
func (s *spool) commit(length int64) {
	h := s.w.Header()
	for k, v := range s.header {
		h[k] = v
	}
	if length > 0 {
		h.Set("Content-Length", strconv.FormatInt(length, 10))
	}
	s.committed = true
	s.w.WriteHeader(http.StatusOK)
}

// finish sends what is held: the whole answer when nothing was sent yet, else its last bytes.
// A client that goes away now is no error of the record.
func (s *spool) finish() {
	if !s.committed && s.req != nil {
		s.header.Set("Accept-Ranges", "bytes")
		if s.req.Header.Get("Range") != "" { // the whole answer is held and verified: serve the range of it
			h := s.w.Header()
			for k, v := range s.header {
				h[k] = v
			}
			s.committed = true
			http.ServeContent(s.w, s.req, "", time.Time{}, bytes.NewReader(s.buf))
			return
		}
	}
	if !s.committed {
		s.commit(int64(len(s.buf)))
	}
	if len(s.buf) > 0 {
		s.w.Write(s.buf)
	}
}
