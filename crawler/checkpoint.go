package crawler

import (
	"context"
	"errors"
	"io"
	"time"
)

// checkpointArchive is an Archive whose sealed side can be checkpointed (StoreArchive's):
// Checkpoint closes the open sealed file, copies the index to index and names the sealed files.
type checkpointArchive interface {
	Checkpoint(index io.Writer) ([]string, error)
}

// Checkpoint closes the store's open sealed file and copies its index (store.Store.Checkpoint).
func (a storeArchive) Checkpoint(index io.Writer) ([]string, error) { return a.st.Checkpoint(index) }

// finalUpload bounds the wait, at the end of a crawl, for the last checkpoint to be in the
// sealed store; what is not uploaded by then stays in DATA/checkpoints for the next crawl.
const finalUpload = 10 * time.Minute

// checkpoints takes a checkpoint of the sealed side every Offsite.Interval while the crawl
// runs. The function it returns stops them, takes the last one, and waits until the uploader
// has put it in the store (a stop signal does not cut that wait short; finalUpload bounds it).
func (c *Crawl) checkpoints(a checkpointArchive) func() error {
	o := c.cfg.Offsite
	quit, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(o.Interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			if err := c.checkpoint(a); err != nil {
				c.log.Warn("sealed side: checkpoint not taken; trying again at the next", "err", err)
			}
		}
	}()
	return func() error {
		close(quit)
		<-stopped
		err := c.checkpoint(a)
		ctx, cancel := context.WithTimeout(context.Background(), finalUpload)
		defer cancel()
		return errors.Join(err, o.Close(ctx))
	}
}

// checkpoint copies the frontier and the index, and closes the sealed files, with no frontier
// mark written nor batch sealed meanwhile: a URL the copy of the frontier records as done has
// its capture in the copy of the index (one recorded as sealing is looked up there on resume,
// docs/architecture.md#crawl-resume), and every sealed file the copy of the index points into is
// closed and named.
func (c *Crawl) checkpoint(a checkpointArchive) error {
	return c.cfg.Offsite.Take(c.now(), func(index, frontier io.Writer) ([]string, error) {
		c.fr.pause.Lock()
		defer c.fr.pause.Unlock()
		if _, err := c.fr.writeTo(frontier); err != nil {
			return nil, err
		}
		return a.Checkpoint(index)
	})
}
