package crawler

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/archivectl/archivectl/aipref"
	"github.com/archivectl/archivectl/crawler/extract"
	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/archivectl/archivectl/crawler/robots/fetch"
	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/store"
)

// visit decides, fetches, seals and follows one URL of origin o.
func (c *Crawl) visit(o *originState, it item) {
	if !c.begin(&it) {
		return // loaded by a page's browser
	}
	defer it.load.finish()
	u, err := url.Parse(it.URL)
	if err != nil {
		c.settle(it, skipped, nil)
		return
	}
	if o.skip != "" {
		c.stats.add(func(s *Summary) { s.Skipped++ })
		c.settle(it, skipped, nil)
		return
	}
	r, fresh, err := c.robots.Get(c.ctx, o.name)
	if err != nil {
		return // cancelled: the URL stays pending
	}
	if fresh {
		c.archiveRobots(o, r)
	}
	var maps []item // sitemaps of an origin in the scope, found by its first page
	if it.Kind == kindPage {
		maps = c.sitemapsOf(o, r)
	}
	d := r.Evaluate(c.cfg.Agent, u)
	delay := max(c.cfg.Delay, d.CrawlDelay)
	if c.cfg.MaxDelay > 0 && delay > c.cfg.MaxDelay {
		o.skip = "crawl-delay " + delay.String() + " is above the ceiling " + c.cfg.MaxDelay.String()
		c.log.Warn("origin skipped: its robots.txt Crawl-delay is above the ceiling; raise crawl.max_delay to crawl it",
			"origin", o.name, "crawl_delay", d.CrawlDelay, "max_delay", c.cfg.MaxDelay)
		c.stats.add(func(s *Summary) { s.Skipped++; s.SkippedOrigins++ })
		c.settle(it, skipped, maps)
		return
	}
	o.setDelay(delay)
	if !d.Allowed {
		switch {
		case d.Rule.Kind == robots.KindUnreachable && unanswered(r):
			c.log.Warn("not crawled: the origin's robots.txt could not be fetched", "url", it.URL, "reason", r.Reason)
			c.stats.add(func(s *Summary) { s.Errors[errRobotsUnreachable]++ })
		case d.Rule.Kind == robots.KindUnreachable:
			c.log.Debug("disallowed: the origin's robots.txt is unreachable", "url", it.URL, "reason", r.Reason)
			c.stats.add(func(s *Summary) { s.Disallowed++; s.Unreachable++ })
		default:
			c.log.Debug("disallowed by robots.txt", "url", it.URL, "rule", d.Rule.String())
			c.stats.add(func(s *Summary) { s.Disallowed++ })
		}
		c.settle(it, skipped, maps)
		return
	}
	if !c.reserve() {
		c.enqueue(maps)
		return // MaxPages reached: the URL stays pending
	}
	x, err := c.get(o, it.URL)
	if err != nil {
		c.pages.Add(-1)
		if c.ctx.Err() != nil && o.skip == "" {
			return // cancelled while waiting: the URL stays pending
		}
		kind := errKind(err)
		c.log.Warn("fetch failed", "url", it.URL, "kind", kind, "err", err)
		c.stats.add(func(s *Summary) { s.Errors[kind]++ })
		c.settle(it, skipped, maps)
		return
	}
	period, source := c.period(d, x.Header)
	it.load.keep(x, period)
	if x.Truncated != "" {
		c.log.Warn("response truncated", "url", it.URL, "reason", x.Truncated, "kept", len(x.Body))
	}
	if noDefaultSitemap(u, it, x) {
		c.pages.Add(-1)
		c.log.Debug("no sitemap at /sitemap.xml: not archived", "url", it.URL, "status", x.Status)
		found, _, _ := c.follow(u, it, x) // a redirect's target
		c.settle(it, skipped, found)
		return
	}
	c.checkDates(it.URL, x)
	found, reqs, links := c.follow(u, it, x)
	found = append(found, maps...)
	lines := x.Header.Values("Content-Usage")
	hp, err := aipref.ParseHeader(lines)
	if err != nil && len(lines) > 0 {
		c.log.Debug("invalid Content-Usage header", "url", it.URL, "err", err)
	}
	capture := store.Capture{
		URL: it.URL, Time: x.Time, IP: x.IP, Request: x.Request, Response: x.Response, Truncated: x.Truncated,
		Period: period, Rule: d.Rule.String(), RobotsID: o.robotsID, EmbargoSource: source,
		UsageHeader: lines, UsageRobots: d.ContentUsage, Usage: aipref.Combine(hp, d.Usage()).Expressions(),
		Outlinks: links, LoadedBy: it.load.loadedBy(),
	}
	switch {
	case it.requisite():
		capture.RequisiteOf, capture.RequisiteOfID = it.Via, it.ViaID
	case it.Kind == kindPage:
		capture.Sitemap, capture.SitemapLastmod = it.Via, it.Lastmod
	}
	size := int64(len(x.Response))
	render := c.browser != nil && it.Kind == kindPage && x.Status >= 200 && x.Status < 300 && extract.IsHTML(x.Header, x.Body)
	if len(reqs) > 0 || render {
		c.wg.Add(1) // the requisites are queued, and the page rendered, once the capture's id is known
	}
	c.sealer.submit(&sealJob{caps: []store.Capture{capture}, mark: &urlChange{Item: it, State: done, At: x.Time, Found: append(found, reqs...)},
		done: func(entries []store.Entry, err error) {
			if len(reqs) > 0 || render {
				defer c.wg.Done()
				id := ""
				if err == nil {
					id = entries[0].ID
				}
				for i := range reqs {
					reqs[i].ViaID = id
				}
				c.enqueue(reqs)
				if render && err == nil {
					c.render(it, x, entries[0])
				}
			}
			if err != nil {
				c.sealFailed(it.URL, err)
				return
			}
			c.sealErrors.Store(0)
			c.stats.page(entries[0], size, c.now())
			c.stats.kind(it.Kind)
			c.prog.Settled()
		}})
	c.enqueue(found)
}

// checkDates logs a Last-Modified that cannot count towards the release time (the store ignores it).
func (c *Crawl) checkDates(rawURL string, x *exchange) {
	lm := x.Header.Values("Last-Modified")
	if len(lm) == 0 {
		return
	}
	t, ok := embargo.LastModified(lm, x.Time)
	switch {
	case !ok:
		c.log.Info("Last-Modified is not an HTTP-date: the first capture time counts instead", "url", rawURL, "last_modified", strings.Join(lm, ", "))
	case t.After(x.Time):
		c.log.Info("Last-Modified is in the future: the first capture time counts instead", "url", rawURL, "last_modified", lm[0])
	}
}

// get fetches a page, retrying network errors with exponential back-off and a 429 or 503 that
// says Retry-After; the origin is backed off in both cases.
func (c *Crawl) get(o *originState, rawURL string) (*exchange, error) {
	backoff := c.cfg.RetryBackoff
	for attempt := 0; ; attempt++ {
		x, err := c.request(c.ctx, rawURL, c.cfg.MaxBody, nil)
		if err == nil {
			if x.Status != http.StatusTooManyRequests && x.Status != http.StatusServiceUnavailable {
				return x, nil
			}
			wait, ok := fetch.RetryAfter(x.Header.Get("Retry-After"), c.now())
			if !ok {
				return x, nil
			}
			if wait > c.cfg.MaxRetryAfter {
				o.skip = "Retry-After " + wait.String()
				c.log.Warn("origin skipped: Retry-After is above the ceiling", "origin", o.name, "retry_after", wait, "max", c.cfg.MaxRetryAfter)
				c.stats.add(func(s *Summary) { s.SkippedOrigins++ })
			}
			o.backOff(c.now().Add(wait))
			if attempt >= c.cfg.Retries || o.skip != "" {
				return x, nil // archived as the server sent it
			}
			c.log.Info("backing off", "origin", o.name, "status", x.Status, "retry_after", wait)
			continue
		}
		if c.ctx.Err() != nil || attempt >= c.cfg.Retries || !retriable(err) {
			return nil, err
		}
		c.log.Info("retrying after a network error", "url", rawURL, "kind", errKind(err), "in", backoff)
		o.backOff(c.now().Add(backoff))
		backoff *= 2
	}
}

// settle records a URL's final state without a capture, with the new URLs found meanwhile,
// and queues those.
func (c *Crawl) settle(it item, st urlState, found []item) {
	defer c.enqueue(found)
	c.sealer.submit(&sealJob{mark: &urlChange{Item: it, State: st, Found: found}, done: func(_ []store.Entry, err error) {
		if err != nil {
			c.fail(err)
			return
		}
		c.prog.Settled()
	}})
}

// maxSealErrors is how many seals in a row may fail before the crawl stops.
const maxSealErrors = 3

// sealFailed logs a capture the store refused; several in a row stop the crawl (a full disk, say).
func (c *Crawl) sealFailed(rawURL string, err error) {
	c.log.Error("capture not sealed", "url", rawURL, "err", err)
	c.stats.add(func(s *Summary) { s.Errors["seal"]++ })
	if c.sealErrors.Add(1) >= maxSealErrors {
		c.fail(fmt.Errorf("%d captures in a row could not be sealed, the last: %w", maxSealErrors, err))
	}
}

// fail stops the crawl on an error it cannot go on after (the store or the frontier failing).
func (c *Crawl) fail(err error) {
	c.log.Error("crawl stopped", "err", err)
	c.cancel(err)
}

// robotsFetch is the robots.txt cache's fetch.Func: a polite, recorded GET, conditional when
// the cache holds a copy with validators.
func (c *Crawl) robotsFetch(ctx context.Context, rawURL string, limit int64) (*robots.Fetched, error) {
	var hdr http.Header
	if v, ok := fetch.ValidatorsFrom(ctx); ok {
		hdr = http.Header{}
		if v.ETag != "" {
			hdr.Set("If-None-Match", v.ETag)
		}
		if v.LastModified != "" {
			hdr.Set("If-Modified-Since", v.LastModified)
		}
	}
	x, err := c.request(ctx, rawURL, limit, hdr)
	if err != nil {
		c.log.Warn("robots.txt fetch failed", "url", rawURL, "kind", errKind(err), "err", err)
		return nil, err
	}
	if x.Truncated == "time" {
		c.log.Warn("robots.txt fetch timed out mid-body", "url", rawURL)
		return nil, errBodyTimeout
	}
	if x.Truncated == "length" {
		c.log.Warn("robots.txt larger than the parse limit: truncated", "url", rawURL, "kept", len(x.Body))
	}
	return &robots.Fetched{URL: rawURL, Status: x.Status, Header: x.Header, Body: x.Body, Truncated: x.Truncated != "", Evidence: x}, nil
}

// archiveRobots seals the exchanges of a fresh robots.txt fetch and remembers the deciding one.
// Only exchanges of an origin's /robots.txt are archived, as evidence outside every embargo; a hop
// at any other URL (a redirect's intermediate step or target) is a resource of its own origin and
// is not archived at all (docs/rules.md#d23).
func (c *Crawl) archiveRobots(o *originState, r *robots.File) {
	var caps []store.Capture
	for _, h := range r.Hops {
		x, ok := h.Evidence.(*exchange)
		if !ok {
			continue
		}
		if !embargo.RobotsExempt(x.URL) {
			c.log.Warn("robots.txt redirect reached a URL that is not a robots.txt: parsed as the origin's robots.txt, not archived",
				"origin", o.name, "url", x.URL)
			c.stats.add(func(s *Summary) { s.RobotsNotArchived++ })
			continue
		}
		caps = append(caps, store.Capture{URL: x.URL, Time: x.Time, IP: x.IP, Request: x.Request, Response: x.Response, Truncated: x.Truncated, Robots: true})
	}
	c.log.Info("robots.txt", "origin", o.name, "availability", availability(r), "hops", len(r.Hops), "expires", r.Expires.Format(time.RFC3339))
	if len(caps) == 0 {
		if !r.Stale {
			o.robotsID = ""
		}
		return
	}
	entries, err := c.sealer.seal(caps, nil)
	if err != nil {
		c.sealFailed(r.Origin+"/robots.txt", err)
		return
	}
	// A stale copy (origin unreachable) or a 304 (unchanged) keeps the copy already archived
	// deciding: its capture stays the evidence.
	if last := r.Hops[len(r.Hops)-1]; !r.Stale && last.Status != http.StatusNotModified {
		o.robotsID = entries[len(entries)-1].ID
	}
	c.stats.add(func(s *Summary) { s.Robots += len(entries) })
}
