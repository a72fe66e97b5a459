package lookup

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Memory limits of heavy answers: a record held until it is verified (spool.go), a prefix page
// and its captures answer built whole (index.go, encode.go; the HTML list, browse.go) and the
// lines a reversed or closest-sorted CDX answer holds (cdxapi.go). Each request may hold heldFree
// bytes of its own; past that it takes its bytes from one budget that all requests share
// (Options.MaxHeldBytes), waiting at most Options.HeldWait for them, else it answers 503 with
// Retry-After (busy). Whatever an
// answer writes, each write must make progress within Options.WriteStall, and an answer's
// writes end answerDeadline after its request began: a stalled reader lets go of what it holds.
const (
	heldFree        = 64 << 10
	defaultMaxHeld  = 64 << 20
	defaultHeldWait = time.Second
	defaultStall    = 15 * time.Second
	answerDeadline  = 5 * time.Minute // cmd/archivectl/serve.go's WriteTimeout
	writeChunk      = 64 << 10        // bytes written under one deadline
	busyRetryAfter  = "5"             // seconds
)

// errBusy is a heavy answer that could not get its share of the held-bytes budget in time.
var errBusy = errors.New("the lookup holds as many heavy answers as it may; try again shortly")

// heldBudget is a weighted semaphore over bytes: acquire takes n bytes when they are free,
// waiting a bounded time; release gives them back and wakes the waiters.
type heldBudget struct {
	mu    sync.Mutex
	size  int64
	free  int64
	freed chan struct{} // closed, and replaced, whenever bytes are given back
}

func newHeldBudget(size int64) *heldBudget {
	return &heldBudget{size: size, free: size, freed: make(chan struct{})}
}

// acquire takes n bytes (at most the whole budget: one answer larger than the budget may still
// be served alone) and returns how many it took, or errBusy when they are not free within wait,
// or ctx's error.
func (b *heldBudget) acquire(ctx context.Context, n int64, wait time.Duration) (int64, error) {
	n = min(n, b.size)
	var timer *time.Timer
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return n, nil
		}
		freed := b.freed
		b.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		}
		select {
		case <-freed:
		case <-timer.C:
			return 0, errBusy
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// release gives back n bytes taken by acquire.
func (b *heldBudget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}

// held reports the bytes taken now.
func (b *heldBudget) held() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size - b.free
}

// busy answers 503 with Retry-After: a heavy answer that found no room; it is counted per route.
func (s *Server) busy(w http.ResponseWriter, route string) {
	s.rejected.WithLabelValues(route).Inc()
	w.Header().Set("Retry-After", busyRetryAfter)
	w.Header().Set("Cache-Control", "no-store")
	writeError(w, http.StatusServiceUnavailable, errBusy.Error())
}

// shareFailed answers a request whose heldShare could not grow: 503 when the budget stayed full,
// nothing when the client went away.
func (s *Server) shareFailed(w http.ResponseWriter, route string, err error) {
	if errors.Is(err, errBusy) {
		s.busy(w, route)
	}
}

// deadlineWriter writes to an answer in chunks of writeChunk bytes, each under a write deadline
// of stall from its start (never past end): a reader that stops reading fails the write.
type deadlineWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
	end   time.Time
}

func newDeadlineWriter(w http.ResponseWriter, stall time.Duration, start time.Time) *deadlineWriter {
	return &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), stall: stall, end: start.Add(answerDeadline)}
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), writeChunk)
		dl := time.Now().Add(d.stall)
		if dl.After(d.end) {
			dl = d.end
		}
		_ = d.rc.SetWriteDeadline(dl) // an http.ResponseRecorder has none: ErrNotSupported
		m, err := d.ResponseWriter.Write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}

// Unwrap lets http.ResponseController reach the connection.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// heldShare is one request's share of the budget, taken as what it holds grows: the first
// heldFree bytes are its own, the rest is taken at least heldFree at a time. Taking a little at a
// time invites a deadlock: many shares, each holding part of the budget, all waiting for more.
// So a share grows only while it holds the server's one growing turn (Server.growing), from its
// first byte past heldFree until built says it has all it needs; a share waiting for the turn
// holds nothing of the budget, and the holder of the turn waits only for bytes that answers
// being written give back (their writes have deadlines).
type heldShare struct {
	budget  *heldBudget // nil: nothing is counted
	turn    chan struct{}
	ctx     context.Context
	wait    time.Duration
	used    int64 // bytes held
	taken   int64 // bytes of the budget taken
	growing bool  // this share holds the turn
}

// share returns an empty share of the budget for the request r.
func (s *Server) share(r *http.Request) *heldShare {
	return &heldShare{budget: s.held, turn: s.growing, ctx: r.Context(), wait: s.opt.HeldWait}
}

// add counts n more bytes held: errBusy when the turn or the budget does not come within the
// wait, an errClientGone when the request ends while it waits.
func (h *heldShare) add(n int64) error {
	if h == nil || h.budget == nil {
		return nil
	}
	if h.used += n; h.used <= heldFree+h.taken {
		return nil
	}
	if !h.growing {
		t := time.NewTimer(h.wait)
		defer t.Stop()
		select {
		case h.turn <- struct{}{}:
			h.growing = true
		case <-t.C:
			return errBusy
		case <-h.ctx.Done():
			return fmt.Errorf("%w: %w", errClientGone, h.ctx.Err())
		}
	}
	got, err := h.budget.acquire(h.ctx, max(heldFree, h.used-heldFree-h.taken), h.wait)
	h.taken += got
	if err != nil && !errors.Is(err, errBusy) {
		return fmt.Errorf("%w: %w", errClientGone, err)
	}
	return err
}

// built gives up the growing turn: the share holds all it will need.
func (h *heldShare) built() {
	if h != nil && h.growing {
		<-h.turn
		h.growing = false
	}
}

// release gives the share back.
func (h *heldShare) release() {
	if h == nil || h.budget == nil {
		return
	}
	h.built()
	h.budget.release(h.taken)
	h.used, h.taken = 0, 0
}
