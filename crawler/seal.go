package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/archivectl/archivectl/store"
)

// Bounds of the sealer. A group closes at maxSealBatch captures, or once it holds
// maxSealBatchBytes of them, or at maxSealBatchJobs jobs in all: the others
// are frontier marks without a capture (a disallowed URL, say), cheap to hold and to record.
// The sealer holds at most three groups' worth of captures, counted and in bytes (one group
// sealed, one recorded in the frontier meanwhile, one filling), and maxSealQueue jobs waiting.
// This bounds the crawl's memory, since the store holds a few copies of each capture's bytes
// while it seals them; captures wait while the sealer is full, marks only while the queue is.
const (
	maxSealBatch      = 192
	maxSealBatchBytes = 4 << 20
	maxSealBatchJobs  = 4 * maxSealBatch
	maxSealQueue      = maxSealBatchJobs
	maxSealHeld       = 3 * maxSealBatch
	maxSealBudget     = 3 * maxSealBatchBytes
)

// sealJob is captures to seal and the frontier mark that follows them; done is called,
// from the sealer's goroutines, once they are durable or have failed.
type sealJob struct {
	caps []store.Capture
	mark *urlChange // nil for robots.txt captures
	done func(entries []store.Entry, err error)
}

// sealer commits the workers' captures in groups, in two stages that overlap: while one
// group is sealed in the store, the next is recorded in the frontier. Per group: one frontier
// update marks the pages as being sealed, with the URLs they found (and records the pages of
// groups already sealed as done); then one Seal makes the captures durable. A kill at any
// point loses nothing: a page marked sealing is looked up in the index on resume, so nothing
// sealed is fetched again.
type sealer struct {
	archive   Archive
	fr        *frontier
	log       *slog.Logger
	jobs      chan *sealJob
	recorded  chan *sealBatch // groups recorded in the frontier, for the store
	sealedOne chan struct{}   // the store stage has sealed a group (buffered: at most one signal)
	finished  chan struct{}

	mu      sync.Mutex
	room    *sync.Cond
	pending int64       // capture bytes submitted and not yet committed
	held    int         // captures submitted and not yet committed
	settled []urlChange // done marks not yet written to the frontier
}

// sealBatch is a group of jobs between the two stages.
type sealBatch struct {
	jobs  []*sealJob
	caps  []store.Capture
	after []urlChange // the done marks of its pages, once sealed
	start time.Time
}

func newSealer(a Archive, fr *frontier, log *slog.Logger) *sealer {
	s := &sealer{archive: a, fr: fr, log: log, jobs: make(chan *sealJob, maxSealQueue), recorded: make(chan *sealBatch), sealedOne: make(chan struct{}, 1), finished: make(chan struct{})}
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

// submit hands j to the sealer without waiting for it to be sealed; a job with captures waits
// while the sealer holds maxSealHeld captures or maxSealBudget bytes (unless it holds none),
// any job while maxSealQueue wait. This bounds memory.
func (s *sealer) submit(j *sealJob) {
	n, k := j.size(), len(j.caps)
	if k > 0 {
		s.mu.Lock()
		for s.held > 0 && (s.pending+n > maxSealBudget || s.held+k > maxSealHeld) {
			s.room.Wait()
		}
		s.pending += n
		s.held += k
		s.mu.Unlock()
	}
	s.jobs <- j
}

// refund returns the budget of committed jobs.
func (s *sealer) refund(batch []*sealJob) {
	var n int64
	var k int
	for _, j := range batch {
		n += j.size()
		k += len(j.caps)
	}
	if k == 0 {
		return
	}
	s.mu.Lock()
	s.pending -= n
	s.held -= k
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

// run records groups of jobs in the frontier and hands them to the store stage, until close.
func (s *sealer) run() {
	defer close(s.finished)
	stored := make(chan struct{})
	go func() {
		defer close(stored)
		for b := range s.recorded {
			s.sealGroup(b)
		}
	}()
	for {
		j, ok := s.next()
		if !ok {
			break
		}
		batch, size, caps := []*sealJob{j}, j.size(), len(j.caps)
	more:
		for len(batch) < maxSealBatchJobs && caps < maxSealBatch && size < maxSealBatchBytes {
			select {
			case j, ok := <-s.jobs:
				if !ok {
					break more
				}
				batch, size, caps = append(batch, j), size+j.size(), caps+len(j.caps)
			default:
				break more
			}
		}
		if b := s.record(batch); b != nil {
			s.recorded <- b
		}
	}
	close(s.recorded)
	<-stored
	s.flush()
}

// next waits for a job; while none comes, it writes the done marks of the groups the store
// stage seals, so that an idle crawl's frontier is up to date. ok is false after close.
func (s *sealer) next() (*sealJob, bool) {
	select {
	case j, ok := <-s.jobs:
		return j, ok
	default:
	}
	for {
		select {
		case j, ok := <-s.jobs:
			return j, ok
		case <-s.sealedOne:
			s.flush()
		}
	}
}

// takeSettled returns the done marks held and forgets them.
func (s *sealer) takeSettled() []urlChange {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.settled
	s.settled = nil
	return m
}

// flush writes the done marks still held.
func (s *sealer) flush() {
	if m := s.takeSettled(); len(m) > 0 {
		s.fr.record(m) // best effort: a page left "sealing" is settled from the index on resume
	}
}

// record is the first stage: it makes the group's frontier marks durable (its pages as being
// sealed, with the URLs they found; its other URLs settled; earlier groups' pages done) and
// returns the group for the store, or nil once it has answered its jobs with an error.
func (s *sealer) record(batch []*sealJob) *sealBatch {
	b := &sealBatch{jobs: batch, start: time.Now()}
	before := s.takeSettled()
	for _, j := range batch {
		b.caps = append(b.caps, j.caps...)
		switch {
		case j.mark == nil:
		case len(j.caps) > 0:
			before = append(before, urlChange{Item: j.mark.Item, State: sealing, At: j.mark.At, Found: j.mark.Found})
			b.after = append(b.after, urlChange{Item: j.mark.Item, State: j.mark.State})
		default:
			before = append(before, *j.mark)
		}
	}
	if len(before) > 0 {
		s.fr.pause.RLock()
		err := s.fr.record(before)
		s.fr.pause.RUnlock()
		if err != nil {
			answer(batch, fmt.Errorf("frontier: %w", err))
			s.refund(batch)
			return nil
		}
	}
	return b
}

// sealGroup is the second stage: it makes the group's captures durable, answers each job, keeps
// the pages' done marks for the next frontier update and returns the group's budget.
func (s *sealer) sealGroup(b *sealBatch) {
	s.commit(b.jobs, b.caps, b.after)
	s.refund(b.jobs)
	s.log.Debug("batch committed", "jobs", len(b.jobs), "took", time.Since(b.start))
	select {
	case s.sealedOne <- struct{}{}:
	default:
	}
}

// commit seals the captures of jobs, whose frontier marks are durable, and answers each job.
func (s *sealer) commit(jobs []*sealJob, caps []store.Capture, after []urlChange) {
	var entries []store.Entry
	if len(caps) > 0 {
		var err error
		s.fr.pause.RLock()
		entries, err = s.archive.Seal(context.Background(), caps)
		s.fr.pause.RUnlock()
		if err != nil && len(jobs) > 1 {
			for _, j := range jobs { // one bad capture must not fail its neighbours
				var a []urlChange
				if j.mark != nil && len(j.caps) > 0 {
					a = []urlChange{{Item: j.mark.Item, State: j.mark.State}}
				}
				s.commit([]*sealJob{j}, j.caps, a)
			}
			return
		}
		if err != nil {
			answer(jobs, fmt.Errorf("seal: %w", err))
			return
		}
		if len(entries) != len(caps) {
			answer(jobs, fmt.Errorf("seal: %d entries for %d captures", len(entries), len(caps)))
			return
		}
	}
	s.mu.Lock()
	s.settled = append(s.settled, after...)
	s.mu.Unlock()
	for _, j := range jobs {
		n := len(j.caps)
		j.done(entries[:n:n], nil)
		entries = entries[n:]
	}
}

// answer tells each job of a failed group the error.
func answer(jobs []*sealJob, err error) {
	for _, j := range jobs {
		j.done(nil, err)
	}
}
