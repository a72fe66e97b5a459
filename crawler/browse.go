package crawler

import (
	"container/list"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/archivectl/archivectl/crawler/browser"
	"github.com/archivectl/archivectl/crawler/extract"
	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/store"
)

// maxLoadedBytes bounds the bytes of this crawl's captures held to serve a browser again.
const maxLoadedBytes = 64 << 20

// loading is one URL's visit in a crawl with a browser, waited for by the pages that load it:
// what the browser is served, so that nothing captured in the crawl is fetched again.
type loading struct {
	loads   *loads
	browser bool // a page's browser asked for it: its capture says loaded_by browser
	done    chan struct{}
	x       *exchange      // the capture; nil when none was made, or once let go (evicted)
	period  embargo.Period // x's own embargo period (its origin's robots.txt, its header)
	evicted bool           // x was let go to bound memory: a browser asking again fetches it again
	elem    *list.Element  // in loads.lru while x is held
}

// loads is every URL visited in a crawl with a browser, with the captures held, least
// recently served let go first past maxLoadedBytes.
type loads struct {
	mu     sync.Mutex
	m      map[string]*loading
	lru    list.List
	bytes  int64
	budget int64 // maxLoadedBytes
}

func newLoads(budget int64) *loads { return &loads{m: map[string]*loading{}, budget: budget} }

// begin registers the visit of a URL taken from its origin's queue. False when a page's
// browser loaded it already, or is loading it: the visit is dropped (its frontier record is
// that load's).
func (c *Crawl) begin(it *item) bool {
	if c.loads == nil || it.load != nil {
		return true
	}
	l := c.loads
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.m[it.URL]; ok && e.browser {
		c.prog.Settled()
		return false
	}
	it.load = &loading{loads: l, done: make(chan struct{})}
	l.m[it.URL] = it.load
	return true
}

// keep holds x, the visit's capture under its own embargo period, for the browsers asking for it.
func (e *loading) keep(x *exchange, period embargo.Period) {
	if e == nil {
		return
	}
	l := e.loads
	l.mu.Lock()
	defer l.mu.Unlock()
	e.x, e.period = x, period
	e.elem = l.lru.PushFront(e)
	l.bytes += held(x)
	for l.bytes > l.budget && l.lru.Len() > 1 {
		old := l.lru.Remove(l.lru.Back()).(*loading)
		l.bytes -= held(old.x)
		old.x, old.elem, old.evicted = nil, nil, true
	}
}

// held is the memory a capture holds: its raw bytes (the payload is a slice of them, or a copy).
func held(x *exchange) int64 {
	n := int64(len(x.Request) + len(x.Response))
	if k := len(x.Response) - len(x.Body); len(x.Body) > 0 && (k < 0 || &x.Body[0] != &x.Response[k]) {
		n += int64(len(x.Body))
	}
	return n
}

// finish ends the visit: the browsers waiting are answered with what keep held, or refused.
func (e *loading) finish() {
	if e != nil {
		close(e.done)
	}
}

// loadedBy is the capture's LoadedBy.
func (e *loading) loadedBy() string {
	if e != nil && e.browser {
		return store.LoadedByBrowser
	}
	return ""
}

// served returns the capture held and its embargo period, touched as recently served; nil when
// there is none.
func (e *loading) served() (*exchange, embargo.Period) {
	l := e.loads
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.elem != nil {
		l.lru.MoveToFront(e.elem)
	}
	return e.x, e.period
}

// rendered is what one render served the browser: the longest embargo period among the
// captures it was given, which its snapshots inherit (they show those captures' content).
type rendered struct {
	mu      sync.Mutex
	longest embargo.Period
}

// add notes a capture of embargo period p given to the browser.
func (r *rendered) add(p embargo.Period) {
	r.mu.Lock()
	r.longest = max(r.longest, p)
	r.mu.Unlock()
}

// forBrowser returns the visit of rawURL a browser waits for, and whether it is new: the
// caller then visits it. An evicted capture is visited anew.
func (l *loads) forBrowser(rawURL string) (*loading, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.m[rawURL]; ok && !e.evicted {
		return e, false
	}
	e := &loading{loads: l, browser: true, done: make(chan struct{})}
	l.m[rawURL] = e
	return e, true
}

// render loads a sealed HTML page (its capture x, sealed as page) in the browser, in the
// background. Each request of the page is answered by browserLoad; the links of the rendered DOM
// are followed like the page's HTML links; its snapshots are sealed beside it (snapshots).
func (c *Crawl) render(it item, x *exchange, page store.Entry) {
	id := page.ID
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case c.renders <- struct{}{}:
		case <-c.ctx.Done():
			return
		}
		defer func() { <-c.renders }()
		var loaded rendered
		p, err := c.browser.Render(c.ctx, it.URL, func(ctx context.Context, r browser.Request) browser.Response {
			return c.browserLoad(ctx, it, x, id, r, &loaded)
		})
		if errors.Is(err, browser.ErrStart) {
			c.fail(err) // a crawl asked to render pages does not go on without a browser
			return
		}
		if err != nil {
			if c.ctx.Err() == nil {
				c.log.Warn("page not rendered: its captures stand without what its scripts load", "url", it.URL, "err", err)
				c.stats.add(func(s *Summary) { s.Errors[errRender]++ })
			}
			return
		}
		c.log.Debug("page rendered", "url", it.URL, "requests", p.Requests, "refused", p.Refused, "links", len(p.Links), "settled", p.Settled)
		c.stats.add(func(s *Summary) { s.Rendered++ })
		loaded.mu.Lock()
		longest := loaded.longest
		loaded.mu.Unlock()
		c.snapshots(page, p, c.now(), longest)
		var refs []extract.Ref
		for _, l := range p.Links {
			if u, err := url.Parse(l); err == nil {
				if cu, ok := extract.Canonical(u); ok {
					refs = append(refs, extract.Ref{URL: cu.String()})
				}
			}
		}
		pages, _ := c.sort(it, x.Time, refs)
		pages = c.owned(c.fr.claim(c.admit(it.URL, pages)))
		if len(pages) == 0 {
			return
		}
		c.sealer.submit(&sealJob{mark: &urlChange{Item: it, State: done, Found: pages}, done: func(_ []store.Entry, err error) {
			if err != nil {
				c.fail(err)
			}
		}})
		c.enqueue(pages)
	}()
}

// roomToRender waits while as many pages as may wait for the browser do; false when the crawl ends.
func (c *Crawl) roomToRender() bool {
	if c.browser == nil {
		return true
	}
	select {
	case c.renders <- struct{}{}:
		<-c.renders
		return true
	case <-c.ctx.Done():
		return false
	}
}

// browserLoad answers one request of page p (captured as x, id): the page itself from x; a URL
// visited in this crawl from its capture; any other URL visited now, as a requisite of p, on its
// origin's turn, so through that origin's robots.txt, politeness and embargo. Each capture
// served is noted in loaded with its embargo period.
func (c *Crawl) browserLoad(ctx context.Context, p item, x *exchange, id string, r browser.Request, loaded *rendered) browser.Response {
	u, err := url.Parse(r.URL)
	if err != nil {
		return browser.Response{Failed: "unparsable URL"}
	}
	cu, ok := extract.Canonical(u)
	switch {
	case !ok:
		return browser.Response{Failed: "not an http(s) URL the crawler fetches"}
	case cu.String() == p.URL:
		return c.served(x)
	case !c.cfg.Partition.Owns(cu):
		return browser.Response{Failed: "another partition's origin"}
	case c.scope.excluded(cu), c.cfg.NoRequisites && !c.inScope(cu):
		return browser.Response{Failed: "excluded"}
	}
	raw := cu.String()
	e, fresh := c.loads.forBrowser(raw)
	if fresh {
		it := item{URL: raw, Depth: p.Depth, Kind: kindRequisite, Hops: 1, Via: p.URL, ViaTime: x.Time, ViaID: id, load: e}
		c.fr.claim([]item{it})
		o := c.originOf(origin(cu))
		select {
		case o.turn <- struct{}{}:
		case <-ctx.Done():
			e.finish()
			return browser.Response{Failed: "the page's time is up"}
		}
		c.prog.Queued(1)
		c.visit(o, it)
		<-o.turn
		if got, _ := e.served(); got != nil {
			c.stats.add(func(s *Summary) { s.BrowserLoads++ })
		}
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		return browser.Response{Failed: "the page's time is up"}
	}
	if got, period := e.served(); got != nil {
		loaded.add(period)
		return c.served(got)
	}
	return browser.Response{Failed: "not captured"}
}

// served is a capture as the browser is given it: status, header fields and payload, its
// Content-Encoding undone when the crawler can.
func (c *Crawl) served(x *exchange) browser.Response {
	h, body := x.Header.Clone(), x.Body
	if len(h.Values("Content-Encoding")) > 0 {
		if r, ok := extract.DecodedUpTo(h, body, c.cfg.MaxBody); ok {
			if b, err := io.ReadAll(r); err == nil {
				body = b
				h.Del("Content-Encoding")
			}
		}
	}
	h.Del("Content-Length")
	h.Del("Transfer-Encoding")
	if h == nil {
		h = http.Header{}
	}
	return browser.Response{Status: x.Status, Header: h, Body: body}
}

// errRender is the error kind of a page the browser could not render, even restarted.
const errRender = "render"

// startBrowser starts the browser of Config.Browser, ended with the crawl.
func (c *Crawl) startBrowser() error {
	if c.cfg.Browser == nil {
		return nil
	}
	opt := *c.cfg.Browser
	opt.Log, opt.Lazy = c.log, true // a crawl that meets no HTML page never starts chromium
	if opt.Profiles == "" {
		opt.Profiles = layout.Browser(c.cfg.DataDir)
	}
	b, err := browser.Start(c.ctx, opt)
	if err != nil {
		return err
	}
	tabs := opt.Tabs
	if tabs <= 0 {
		tabs = browser.Defaults().Tabs
	}
	c.browser, c.loads = b, newLoads(maxLoadedBytes)
	c.renders = make(chan struct{}, 4*tabs)
	c.log.Info("browser ready: HTML pages are rendered, what they load fetched politely; chromium starts with the first", "tabs", tabs)
	return nil
}

// browserSummary adds the browser's figures to sum.
func (c *Crawl) browserSummary(sum *Summary) {
	if c.browser != nil {
		sum.BrowserPeakRSS, sum.BrowserRestarts = c.browser.PeakRSS(), max(c.browser.Started()-1, 0)
	}
}
