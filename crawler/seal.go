package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/archivectl/archivectl/store"
)

// Bounds of the sealer: jobs committed together, jobs waiting, and response bytes waiting
// (a job is let in alone when it is bigger than the whole budget).
const (
	maxSealBatch  = 512
	maxSealQueue  = 1024
	maxSealBudget = 64 << 20
)

// sealJob is captures to seal and the frontier mark that follows them; done is called,
// from the sealer's goroutine, once they are durable or have failed.
type sealJob struct {
	caps []store.Capture
	mark *urlChange // nil for robots.txt captures
	done func(entries []store.Entry, err error)
}

// sealer commits the workers' captures in groups. Per group: one frontier update marks the
// pages as being sealed, with the URLs they found (and records the previous group's pages as
// done); one Seal makes the captures durable. A kill at any point loses nothing: a page marked
// sealing is looked up in the index on resume, so nothing sealed is fetched again.
type sealer struct {
	archive  Archive
	fr       *frontier
	log      *slog.Logger
	jobs     chan *sealJob
	finished chan struct{}
	settled  []urlChange // done marks not yet written to the frontier

	mu      sync.Mutex
	room    *sync.Cond
	pending int64 // response bytes submitted and not yet committed
}

func newSealer(a Archive, fr *frontier, log *slog.Logger) *sealer {
	s := &sealer{archive: a, fr: fr, log: log, jobs: make(chan *sealJob, maxSealQueue), finished: make(chan struct{})}
	s.room = sync.NewCond(&s.mu)
	return s
}

// size is the response bytes a job holds.
func (j *sealJob) size() int64 {
	var n int64
	for _, c := range j.caps {
		n += int64(len(c.Response) + len(c.Request))
	}
	return n
}

// submit hands j to the sealer without waiting for it to be sealed; it waits while the sealer
// holds maxSealQueue jobs or maxSealBudget bytes, which bounds memory.
func (s *sealer) submit(j *sealJob) {
	n := j.size()
	s.mu.Lock()
	for s.pending > 0 && s.pending+n > maxSealBudget {
		s.room.Wait()
	}
	s.pending += n
	s.mu.Unlock()
	s.jobs <- j
}

// refund returns the budget of committed jobs.
func (s *sealer) refund(batch []*sealJob) {
	var n int64
	for _, j := range batch {
		n += j.size()
	}
	s.mu.Lock()
	s.pending -= n
	s.mu.Unlock()
	s.room.Broadcast()
}

// seal hands j to the sealer and waits until it is durable.
func (s *sealer) seal(caps []store.Capture, m *urlChange) ([]store.Entry, error) {
	type result struct {
		entries []store.Entry
		err     error
	}
	ch := make(chan result, 1)
	s.submit(&sealJob{caps: caps, mark: m, done: func(e []store.Entry, err error) { ch <- result{e, err} }})
	r := <-ch
	return r.entries, r.err
}

// close stops the sealer once every job handed to it is committed and the frontier is up to date.
func (s *sealer) close() {
	close(s.jobs)
	<-s.finished
}

// run commits jobs until close.
func (s *sealer) run() {
	defer close(s.finished)
	for j := range s.jobs {
		batch := []*sealJob{j}
	more:
		for len(batch) < maxSealBatch {
			select {
			case j, ok := <-s.jobs:
				if !ok {
					break more
				}
				batch = append(batch, j)
			default:
				break more
			}
		}
		start := time.Now()
		s.commit(batch)
		s.refund(batch)
		s.log.Debug("batch committed", "jobs", len(batch), "took", time.Since(start))
		if len(s.jobs) == 0 {
			s.flush()
		}
	}
	s.flush()
}

// flush writes the done marks still held.
func (s *sealer) flush() {
	if len(s.settled) == 0 {
		return
	}
	s.fr.record(s.settled) // best effort: a page left "sealing" is settled from the index on resume
	s.settled = nil
}

// commit makes one group durable and answers each job.
func (s *sealer) commit(batch []*sealJob) {
	before := s.settled
	s.settled = nil
	var after []urlChange
	var caps []store.Capture
	for _, j := range batch {
		caps = append(caps, j.caps...)
		switch {
		case j.mark == nil:
		case len(j.caps) > 0:
			before = append(before, urlChange{Item: j.mark.Item, State: sealing, At: j.mark.At, Found: j.mark.Found})
			after = append(after, urlChange{Item: j.mark.Item, State: j.mark.State})
		default:
			before = append(before, *j.mark)
		}
	}
	answer := func(err error) {
		for _, j := range batch {
			j.done(nil, err)
		}
	}
	if len(before) > 0 {
		if err := s.fr.record(before); err != nil {
			answer(fmt.Errorf("frontier: %w", err))
			return
		}
	}
	var entries []store.Entry
	if len(caps) > 0 {
		var err error
		entries, err = s.archive.Seal(context.Background(), caps)
		if err != nil && len(batch) > 1 {
			for _, j := range batch { // one bad capture must not fail its neighbours
				s.commit([]*sealJob{j})
			}
			return
		}
		if err != nil {
			answer(fmt.Errorf("seal: %w", err))
			return
		}
		if len(entries) != len(caps) {
			answer(fmt.Errorf("seal: %d entries for %d captures", len(entries), len(caps)))
			return
		}
	}
	s.settled = append(s.settled, after...)
	for _, j := range batch {
		n := len(j.caps)
		j.done(entries[:n:n], nil)
		entries = entries[n:]
	}
}
