package release

import (
	"runtime"
	"sync"

	"github.com/archivectl/archivectl/store"
)

// checkAhead is how many captures of a batch the checking goroutines may be ahead of the pass:
// enough to keep them busy while the copier copies, few enough that what they read is still in
// the page cache when it copies.
const checkAhead = 128

// checks checks the sealed members of a batch's captures (checkCapture) on goroutines of their
// own, in batch order and a little ahead of the pass, which takes each result in turn (result):
// the decompression runs beside the copy and the building of the lines.
type checks struct {
	batch   []store.Entry
	pos     map[string]int // capture id → index in batch
	res     []checkResult
	tokens  chan struct{} // one per capture checked and not yet taken
	stopped chan struct{}
	wg      sync.WaitGroup
}

type checkResult struct {
	done chan struct{}
	err  error
}

// startChecks starts checking batch's captures in the sealed files s.
func startChecks(s *sealedFiles, batch []store.Entry) *checks {
	c := &checks{batch: batch, pos: make(map[string]int, len(batch)), res: make([]checkResult, len(batch)),
		tokens: make(chan struct{}, checkAhead), stopped: make(chan struct{})}
	for i, e := range batch {
		c.pos[e.ID] = i
		c.res[i].done = make(chan struct{})
	}
	next := make(chan int)
	c.wg.Add(1)
	go func() { // hands out the captures in order, checkAhead at most ahead of result
		defer c.wg.Done()
		defer close(next)
		for i := range batch {
			select {
			case c.tokens <- struct{}{}:
			case <-c.stopped:
				return
			}
			select {
			case next <- i:
			case <-c.stopped:
				return
			}
		}
	}()
	for range min(runtime.GOMAXPROCS(0), 4) {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for i := range next {
				c.res[i].err = checkCapture(s, batch[i])
				close(c.res[i].done)
			}
		}()
	}
	return c
}

// result waits for the check of batch[i], which must be taken in batch order, once each.
func (c *checks) result(i int) error {
	<-c.res[i].done
	<-c.tokens
	return c.res[i].err
}

// stop ends the checking goroutines, once what they check is done.
func (c *checks) stop() {
	close(c.stopped)
	c.wg.Wait()
}
