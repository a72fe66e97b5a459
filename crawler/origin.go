package crawler

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/archivectl/archivectl/crawler/extract"
)

// origin is a URL's scheme://host[:port], the unit of scope and politeness.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// originState is one origin's queue, politeness clock and robots.txt facts.
type originState struct {
	name string

	// Under crawl.mu.
	queue   []queued
	running bool // a worker goroutine is draining queue

	// Under gate: one request in flight per origin, spaced by delay.
	gate      sync.Mutex
	lastEnd   time.Time     // when the last request to the origin ended
	notBefore time.Time     // Retry-After or back-off after an error
	delay     time.Duration // effective delay: max(--delay, Crawl-delay)

	// Used by the origin's worker only.
	robotsID string // capture id of the robots.txt capture in force
	skip     string // why the rest of the origin is skipped; "" when it is not
	sitemaps bool   // its sitemaps were looked for in this run

	turn chan struct{} // held by a visit: the worker's, or a page's browser loading a resource (browse.go)
}

// queued is an item waiting in its origin's queue, in a quarter of an item's size: a frontier
// of 100,000 URLs waits in queues, and few items carry more than URL, depth and redirects.
type queued struct {
	url              string
	depth, redirects int32
	ext              *item // the whole item when it carries more, or its numbers do not fit
}

func toQueued(it item) queued {
	if it.extended() || it.Depth != int(int32(it.Depth)) || it.Redirects != int(int32(it.Redirects)) {
		return queued{url: it.URL, ext: &it}
	}
	return queued{url: it.URL, depth: int32(it.Depth), redirects: int32(it.Redirects)}
}

func (q queued) item() item {
	if q.ext != nil {
		return *q.ext
	}
	return item{URL: q.url, Depth: int(q.depth), Redirects: int(q.redirects)}
}

// originOf returns the state of a URL's origin, creating it.
func (c *Crawl) originOf(name string) *originState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.originLocked(name)
}

func (c *Crawl) originLocked(name string) *originState {
	o, ok := c.origins[name]
	if !ok {
		o = &originState{name: name, delay: c.cfg.Delay, turn: make(chan struct{}, 1)}
		c.origins[name] = o
	}
	return o
}

// enqueue appends items to their origins' queues and starts a worker for each idle origin.
func (c *Crawl) enqueue(items []item) {
	if len(items) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, it := range items {
		u, err := url.Parse(it.URL)
		if err != nil {
			continue
		}
		o := c.originLocked(origin(u))
		o.queue = append(o.queue, toQueued(it))
		if !o.running {
			o.running = true
			c.wg.Add(1)
			go c.work(o)
		}
	}
	c.prog.Queued(len(items))
}

// work drains one origin's queue, one URL at a time.
func (c *Crawl) work(o *originState) {
	defer c.wg.Done()
	for {
		c.roomToRender()
		c.mu.Lock()
		if len(o.queue) == 0 || c.ctx.Err() != nil || c.full() {
			o.running = false
			c.mu.Unlock()
			return
		}
		it := o.queue[0].item()
		o.queue[0] = queued{}
		o.queue = o.queue[1:]
		if len(o.queue) == 0 {
			o.queue = nil // let the backing array go
		}
		c.mu.Unlock()
		o.turn <- struct{}{}
		c.visit(o, it)
		<-o.turn
	}
}

// request does one GET through the origin's gate: it waits for the origin's delay and back-off,
// holds the origin (one request in flight) and a global slot while fetching. An in-flight fetch
// is not cancelled by ctx: it finishes within the fetch timeout.
func (c *Crawl) request(ctx context.Context, rawURL string, limit int64, hdr http.Header) (*exchange, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if cu, ok := extract.Canonical(u); ok { // a robots.txt redirect's target may not be canonical
		u = cu
	}
	o := c.originOf(origin(u)) // one gate per transport connection key (docs/rules.md#d24)
	o.gate.Lock()
	defer o.gate.Unlock()
	next := o.lastEnd.Add(o.delay)
	if o.notBefore.After(next) {
		next = o.notBefore
	}
	if err := sleep(ctx, next.Sub(c.now())); err != nil {
		return nil, err
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	x, err := c.fetch.fetch(context.WithoutCancel(ctx), rawURL, limit, hdr)
	<-c.sem
	o.lastEnd = c.now()
	return x, err
}

// setDelay sets the origin's effective delay.
func (o *originState) setDelay(d time.Duration) {
	o.gate.Lock()
	o.delay = d
	o.gate.Unlock()
}

// backOff keeps requests away from the origin until t.
func (o *originState) backOff(t time.Time) {
	o.gate.Lock()
	if t.After(o.notBefore) {
		o.notBefore = t
	}
	o.gate.Unlock()
}
