package release

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/archivectl/archivectl/internal/durable"
)

// copier copies sealed byte ranges into public files on a goroutine of its own, in the order they
// were queued, and starts the writeback of each range it copied: the kernel copies (copy_file_range)
// and the disk writes while the pass builds the lines of the captures that follow, and the fsync
// that ends a file has little left to wait for. One copier serves a whole pass: the sealed files'
// handles (whose offsets a copy moves) are used by its goroutine alone.
type copier struct {
	jobs    chan copyJob
	pending sync.WaitGroup // jobs queued and not done
	mu      sync.Mutex
	err     error // the first copy that failed; every later job is skipped
}

// copyJob is n bytes of src at off, to be written at offset at of dst (the public file name).
type copyJob struct {
	dst    *os.File
	name   string
	at     int64
	src    *os.File
	off, n int64
}

func newCopier() *copier {
	c := &copier{jobs: make(chan copyJob, 64)}
	go c.run()
	return c
}

func (c *copier) run() {
	for j := range c.jobs {
		if c.failed() == nil {
			if err := j.copy(); err != nil {
				c.mu.Lock()
				c.err = err
				c.mu.Unlock()
			} else {
				crashPoint("copied") // a sealed range copied into a temp shard
			}
		}
		c.pending.Done()
	}
}

// copy copies the job's range, which must end at the end of dst so far, and starts its writeback.
func (j copyJob) copy() error {
	if _, err := j.src.Seek(j.off, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", j.src.Name(), err)
	}
	n, err := j.dst.ReadFrom(io.LimitReader(j.src, j.n))
	if err == nil && n != j.n {
		err = fmt.Errorf("%s ends %d bytes into a range of %d at offset %d", j.src.Name(), n, j.n, j.off)
	}
	if err != nil {
		return fmt.Errorf("copy into %s: %w", j.name, err)
	}
	durable.StartWriteback(j.dst, j.at, j.n)
	return nil
}

func (c *copier) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// queue hands a job to the copier.
func (c *copier) queue(j copyJob) {
	c.pending.Add(1)
	c.jobs <- j
}

// wait returns once every job queued so far is done, with the first copy error of the pass.
func (c *copier) wait() error {
	c.pending.Wait()
	return c.failed()
}

// close stops the copier's goroutine once its queued jobs are done.
func (c *copier) close() {
	c.pending.Wait()
	close(c.jobs)
}
