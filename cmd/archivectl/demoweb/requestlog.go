package demoweb

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Request is one request as the demo server saw it.
type Request struct {
	Origin    string    // origin name
	Method    string    // GET, HEAD…
	Path      string    // path and query as requested
	UserAgent string    // the User-Agent field
	Status    int       // the status answered (0 while in progress)
	Start     time.Time // when the server began handling it
	End       time.Time // when the response was written; zero while in progress
}

// requestLog records requests in arrival order.
type requestLog struct {
	now  func() time.Time
	mu   sync.Mutex
	reqs []Request
}

// begin logs a request's arrival and returns its index.
func (l *requestLog) begin(r Request) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	r.Start = l.now()
	l.reqs = append(l.reqs, r)
	return len(l.reqs) - 1
}

// end logs that request i was answered with status.
func (l *requestLog) end(i, status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs[i].Status = status
	l.reqs[i].End = l.now()
}

// snapshot copies the log.
func (l *requestLog) snapshot() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

// MaxInFlight is the largest number of the given requests the server was handling at one
// instant; a request still in progress counts as open. Filter by origin first to check
// "one request at a time per host". Touching intervals (one ends as the next starts) do not overlap.
func MaxInFlight(reqs []Request) int {
	type event struct {
		at    time.Time
		delta int // +1 start, -1 end
	}
	events := make([]event, 0, 2*len(reqs))
	for _, r := range reqs {
		events = append(events, event{r.Start, +1})
		if !r.End.IsZero() {
			events = append(events, event{r.End, -1})
		}
	}
	slices.SortFunc(events, func(a, b event) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta) // ends before starts at the same instant
	})
	open, most := 0, 0
	for _, e := range events {
		open += e.delta
		most = max(most, open)
	}
	return most
}
