package lookup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// spool holds an answer until it is verified: up to limit bytes are kept and sent with their
// status line by finish; beyond that the status line goes out and bytes are passed on, always
// holding back the last write, which only finish sends. The first heldFree bytes it holds are
// the request's own; more are taken from the shared budget (held.go), as many at once as the
// answer can grow to (bound), and given back by release; a budget that stays full fails Write
// with errBusy while nothing has been sent.
type spool struct {
	w         http.ResponseWriter // writes under per-write deadlines (deadlineWriter)
	limit     int
	header    http.Header // the answer's header fields, set on commit
	length    int64       // Content-Length of a committed answer when known in advance; 0 if not
	buf       []byte
	committed bool
	req       *http.Request // the request: a Range in it is answered from a held answer
	ranged    bool          // the request asks for one range: an answer past limit fails with errLargeRange instead of streaming whole

	budget *heldBudget
	wait   time.Duration
	taken  int64        // bytes of the budget this spool holds
	bound  func() int64 // the most bytes the answer can grow to, once known; 0 while unknown
}

// Write keeps p, or sends what it held before.
func (s *spool) Write(p []byte) (int, error) {
	if !s.committed && len(s.buf)+len(p) <= s.limit {
		if err := s.grow(len(s.buf) + len(p)); err != nil {
			return 0, err
		}
		s.buf = append(s.buf, p...)
		return len(p), nil
	}
	if !s.committed && s.ranged {
		return 0, errLargeRange // served by serveRange, which holds nothing
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

// grow makes room to hold need bytes: within heldFree from the request's own, past it from the
// budget, the answer's bound at once (or limit when the bound is not known yet).
func (s *spool) grow(need int) error {
	switch {
	case need <= cap(s.buf):
		return nil
	case need <= heldFree || s.budget == nil:
		if s.buf == nil {
			s.buf = make([]byte, 0, min(heldFree, s.limit))
		}
		return nil
	}
	want := int64(s.limit)
	if s.bound != nil {
		if b := s.bound(); b >= int64(need) && b < want {
			want = b
		}
	}
	if want > s.taken {
		ctx := context.Background()
		if s.req != nil {
			ctx = s.req.Context()
		}
		n, err := s.budget.acquire(ctx, want-s.taken, s.wait)
		switch {
		case errors.Is(err, errBusy):
			return err
		case err != nil:
			return fmt.Errorf("%w: %w", errClientGone, err)
		}
		s.taken += n
	}
	b := make([]byte, len(s.buf), want)
	copy(b, s.buf)
	s.buf = b
	return nil
}

// release drops what the spool holds and gives its share of the budget back.
func (s *spool) release() {
	s.buf = nil
	if s.budget != nil {
		s.budget.release(s.taken)
	}
	s.taken = 0
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
