// Package crawler crawls seed origins politely into an archive: a persisted frontier,
// one request in flight per origin with delays and back-off, robots.txt decisions on every
// URL, raw exchanges recorded for WARC, links followed inside the seeds' origins. With a browser
// (Config.Browser, package browser) pages are rendered and every request the page makes is a
// visit of its own origin (browse.go); with a hand-off (Config.HandOff, package handoff) the URLs
// of other partitions' origins go to their nodes through a shared store (handoff.go). The caller
// opens the archive (the sealed store) and draws any progress display.
package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/archivectl/archivectl/crawler/browser"
	"github.com/archivectl/archivectl/crawler/extract"
	"github.com/archivectl/archivectl/crawler/offsite"
	"github.com/archivectl/archivectl/crawler/robots/fetch"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/store"
)

// Archive is where captures go: the sealed store (StoreArchive), or a fake in tests.
type Archive interface {
	// Seal makes caps durable and returns their entries, one per capture, in order.
	Seal(ctx context.Context, caps []store.Capture) ([]store.Entry, error)
	// Captured returns the id of the sealed capture of rawURL made at at (to the second); "" when there is none.
	Captured(ctx context.Context, rawURL string, at time.Time) (string, error)
}

// Progress hears how far a crawl is, for a display; it is called from many goroutines.
type Progress interface {
	Queued(n int) // n more URLs to settle
	Settled()     // one URL done with: sealed, disallowed, skipped or failed
}

// Config is one crawl's settings. Zero durations and sizes take the defaults noted (Defaults).
type Config struct {
	DataDir               string        // frontier.db lives here
	Seeds                 []*url.URL    // canonical seed URLs (ParseSeeds); scope is their origins
	Agent                 string        // robots.txt product token
	UserAgent             string        // the User-Agent header sent
	Delay                 time.Duration // minimum time between requests to one origin (0 allowed)
	MaxDelay              time.Duration // Crawl-delay ceiling: an origin asking more is skipped (0: no ceiling)
	MaxRetryAfter         time.Duration // longest Retry-After honoured; longer skips the origin (default 5m)
	Concurrency           int           // requests in flight over all origins (default 16)
	MaxPages              int           // captures (robots.txt aside) this crawl makes; 0 = no limit
	MaxDepth              int           // links followed from a seed; 0 = no limit
	MaxBody               int64         // payload bytes kept per response (default 10 MiB)
	Timeout               time.Duration // whole exchange, body included (default 30s)
	Retries               int           // retries after a network error or a 429/503 with Retry-After
	RetryBackoff          time.Duration // wait before the first retry after a network error, doubled after each (default 1s)
	RobotsUnreachableDays int           // 0 = an unreachable robots.txt without a cached copy disallows all, forever
	LockTimeout           time.Duration // how long to wait for a busy frontier.db (default lockfile.DefaultTimeout, 5 s)
	MaxURLLength          int           // longest URL, in bytes, crawled or followed (default DefaultMaxURLLength; at most MaxURLLengthCeiling)
	MaxPathDepth          int           // most path segments a followed link may have; 0 = no limit (Defaults: DefaultMaxPathDepth)
	MaxPathRepeats        int           // most times one path segment may follow itself in a followed link; 0 = no limit (Defaults: DefaultMaxPathRepeats)

	ScopedSeeds   []Seed            // seeds that may name their own scope (ReadSeeds); crawled with Seeds
	Scope         Scope             // the scope of a seed that names none (default DefaultScope)
	Include       []string          // URL patterns (robots.txt syntax, see scope.go) of which a page must match one; none: every page
	Exclude       []string          // URL patterns that no page nor requisite may match
	NoRequisites  bool              // fetch no embedded resource outside the scope or beyond MaxDepth
	Sitemaps      SitemapMode       // which sitemaps are read (default DefaultSitemaps)
	HeaderEmbargo bool              // let an Archive-Embargo response field lengthen a capture's embargo (a proposal, not the -00 draft)
	Resolve       map[string]string // host name → IP address dialled instead of looking the name up (a staging mirror, tests)
	Partition     Partition         // crawl only the origins of this partition (zero: all)
	HandOff       *HandOff          // hand other partitions' URLs to their nodes, and fetch this one's (nil: count and leave them)
	Browser       *browser.Options  // non-nil: HTML pages are rendered in headless Chromium, what they load captured (browse.go)
	Offsite       *offsite.Uploader // non-nil: sealed files and checkpoints kept in the node's sealed store (checkpoint.go)

	Log      *slog.Logger // nil discards
	Progress Progress     // nil: none
	Now      func() time.Time
}

// ErrNoSeedInPartition is returned by Open when no seed's origin falls in Config.Partition:
// this node has nothing to crawl.
var ErrNoSeedInPartition = errors.New("no seed's origin falls in partition")

// ErrInterrupted is returned when the context was cancelled before the crawl finished.
var ErrInterrupted = errors.New("crawl interrupted: run the same command again to resume it")

// maxRedirects bounds a chain of redirects followed from one URL.
const maxRedirects = 10

// Crawl is one crawl of a data directory, its frontier open: Run it once, then Close it.
type Crawl struct {
	cfg          Config
	ctx          context.Context
	cancel       context.CancelCauseFunc
	log          *slog.Logger
	now          func() time.Time
	fr           *frontier
	res          resumed // what openFrontier found
	seeds        []string
	fetch        *fetcher
	robots       *fetch.Cache
	sealer       *sealer
	sem          chan struct{}
	scope        *scope
	stats        *stats
	prog         Progress
	ran          bool
	pages        atomic.Int64 // pages reserved against MaxPages
	sitemapFiles atomic.Int64 // sitemap files queued by this run
	sealErrors   atomic.Int32 // seals failed in a row
	mu           sync.Mutex
	origins      map[string]*originState
	wg           sync.WaitGroup
	badHandOff   map[string]bool      // hand-off batches that cannot be read, left alone (the hand-off loop's)
	consumedAt   map[string]time.Time // with a sealed store: hand-off batches consumed and not yet deleted, and since when (the hand-off loop's)
	browser      *browser.Browser     // nil without Config.Browser
	loads        *loads               // with a browser: every URL visited, what it is served
	renders      chan struct{}        // with a browser: pages rendering or waiting for a tab
}

// Open takes DataDir/frontier.db for a crawl of cfg.Seeds: an unfinished crawl of the same
// seeds found there is resumed by Run; a second crawl of the directory waits LockTimeout, then
// fails. The crawl's clock starts here.
func Open(cfg Config) (*Crawl, error) {
	cfg = withDefaults(cfg)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Crawl{cfg: cfg, log: cfg.Log, now: cfg.Now, prog: cfg.Progress, sem: make(chan struct{}, cfg.Concurrency), origins: map[string]*originState{}}
	c.stats = newStats(c.now())
	seeds := c.allSeeds()
	if len(seeds) == 0 {
		return nil, errors.New("no seeds: the seeds file lists no URL")
	}
	for i, s := range seeds {
		u, ok := extract.Canonical(s.URL)
		if !ok {
			return nil, fmt.Errorf("seed %v: not an http(s) URL the crawler can fetch", s.URL)
		}
		if err := checkURLLength(u.String(), cfg.MaxURLLength); err != nil {
			return nil, fmt.Errorf("seed %s: %w", clip(u.String()), err)
		}
		seeds[i].URL = u
	}
	if seeds = slices.DeleteFunc(seeds, func(s Seed) bool { return !cfg.Partition.Owns(s.URL) }); len(seeds) == 0 {
		return nil, fmt.Errorf("%w %s", ErrNoSeedInPartition, cfg.Partition)
	}
	var err error
	if c.scope, err = newScope(seeds, cfg.Scope, cfg.Include, cfg.Exclude); err != nil {
		return nil, err
	}
	for _, s := range seeds {
		c.seeds = append(c.seeds, s.URL.String())
	}
	if cfg.Browser != nil {
		if _, err := browser.Find(cfg.Browser.Chromium); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	fr, res, err := openFrontier(layout.Frontier(cfg.DataDir), c.frontierKey(seeds), cfg.LockTimeout)
	if err != nil {
		return nil, err
	}
	c.fr, c.res = fr, res
	return c, nil
}

// Close closes frontier.db; call it once, after Run or instead of it.
func (c *Crawl) Close() error { return c.fr.close() }

// Run crawls the seeds into a until the frontier is empty, a limit is reached or ctx is
// cancelled (then in-flight fetches finish and are sealed, and the error is ErrInterrupted).
// A crawl of the same seeds killed earlier is resumed: a page it may have sealed is looked up
// with a.Captured. The summary is returned whatever the error.
func (c *Crawl) Run(ctx context.Context, a Archive) (Summary, error) {
	if c.ran {
		return c.stats.summary(c.now()), errors.New("crawler: a Crawl runs once")
	}
	c.ran = true
	if c.cfg.Offsite == nil {
		return c.run(ctx, a)
	}
	ca, ok := a.(checkpointArchive)
	if !ok {
		return c.stats.summary(c.now()), errors.New("crawler: a sealed store needs an archive that takes checkpoints (StoreArchive)")
	}
	if err := c.cfg.Offsite.Start(context.WithoutCancel(ctx)); err != nil {
		return c.stats.summary(c.now()), err
	}
	stop := c.checkpoints(ca)
	sum, err := c.run(ctx, a)
	return sum, errors.Join(err, stop())
}

// run is Run without the checkpoints.
func (c *Crawl) run(ctx context.Context, a Archive) (Summary, error) {
	a = c.handOffArchive(a)
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	defer c.cancel(nil)
	pending, err := c.resume(c.ctx, a)
	if err != nil {
		return c.stats.summary(c.now()), err
	}

	if err := c.startBrowser(); err != nil {
		return c.stats.summary(c.now()), err
	}
	defer c.browser.Close()
	c.fetch = newFetcher(c.cfg.UserAgent, c.cfg.Timeout, c.now, c.cfg.Resolve)
	defer c.fetch.close()
	c.robots = fetch.NewCache(c.robotsFetch, c.now, fetch.CacheOptions{UnreachableAllowAfter: time.Duration(c.cfg.RobotsUnreachableDays) * 24 * time.Hour})
	c.sealer = newSealer(a, c.fr, c.log)
	go c.sealer.run()

	fr := c.fr
	seedItems := make([]item, len(c.seeds))
	for i, s := range c.seeds {
		seedItems[i] = item{URL: s}
	}
	seedItems = fr.claim(seedItems)
	if err := fr.add(seedItems); err != nil {
		c.sealer.close()
		return c.stats.summary(c.now()), fmt.Errorf("frontier: %w", err)
	}
	if c.res.Fresh {
		c.log.Info("crawl started", "seeds", len(c.seeds), "data", c.cfg.DataDir)
	} else {
		c.log.Info("crawl resumed", "pending", len(pending), "sealed", c.res.Done, "data", c.cfg.DataDir)
	}
	c.enqueue(append(pending, seedItems...))
	c.startHandOff(a)
	c.wg.Wait()
	c.log.Debug("workers done; sealing what is left")
	c.sealer.close()
	if err := c.finishHandOff(a, ctx.Err() != nil); err != nil {
		return c.stats.summary(c.now()), err
	}
	sum := c.stats.summary(c.now())
	sum.Frontier = fr.size()
	sum.PeakRSS = peakRSS()
	c.browserSummary(&sum)
	if ctx.Err() != nil {
		c.log.Info("crawl interrupted: in-flight pages are sealed", "pages", sum.Pages)
	} else {
		c.log.Info("crawl finished", "pages", sum.Pages, "frontier", sum.Frontier)
	}
	if cause := context.Cause(c.ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return sum, cause
	}
	if ctx.Err() != nil {
		return sum, ErrInterrupted
	}
	if err := fr.complete(); err != nil {
		return sum, fmt.Errorf("frontier: %w", err)
	}
	return sum, nil
}

// Defaults returns the settings a crawl is meant to run with: archivectl's configuration starts
// from them. Open fills the zero fields of a Config from them, except Delay, MaxDelay, Retries,
// MaxPathDepth and MaxPathRepeats, whose zero is a setting of its own.
func Defaults() Config {
	return Config{
		Agent:          "archivectl",
		Delay:          time.Second,
		MaxDelay:       30 * time.Second,
		MaxRetryAfter:  5 * time.Minute,
		Concurrency:    16,
		MaxBody:        10 << 20,
		Timeout:        30 * time.Second,
		Retries:        2,
		RetryBackoff:   time.Second,
		LockTimeout:    lockfile.DefaultTimeout,
		MaxURLLength:   DefaultMaxURLLength,
		MaxPathDepth:   DefaultMaxPathDepth,
		MaxPathRepeats: DefaultMaxPathRepeats,
		Scope:          DefaultScope,
		Sitemaps:       DefaultSitemaps,
	}
}

// withDefaults fills the zero values of cfg.
func withDefaults(cfg Config) Config {
	d := Defaults()
	if cfg.Agent == "" {
		cfg.Agent = d.Agent
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = cfg.Agent
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = d.Concurrency
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = d.MaxBody
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = d.Timeout
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = d.MaxRetryAfter
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = d.RetryBackoff
	}
	if cfg.LockTimeout <= 0 {
		cfg.LockTimeout = d.LockTimeout
	}
	if cfg.MaxURLLength == 0 {
		cfg.MaxURLLength = d.MaxURLLength
	}
	if cfg.Scope == "" {
		cfg.Scope = d.Scope
	}
	if cfg.Sitemaps == "" {
		cfg.Sitemaps = d.Sitemaps
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Progress == nil {
		cfg.Progress = noProgress{}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return handOffDefaults(cfg)
}

// resume settles URLs whose seal may have been cut short, asking a whether it holds their
// captures, and returns the pending work, shallowest first.
func (c *Crawl) resume(ctx context.Context, a Archive) ([]item, error) {
	res := c.res
	c.pages.Store(int64(res.Done))
	c.stats.resumed(res.Done)
	var settled []urlChange
	pending := res.Pending[:0]
	for _, it := range res.Pending {
		at, ok := res.Sealing[it.URL]
		if ok {
			id, err := a.Captured(ctx, it.URL, at)
			if err != nil {
				return nil, fmt.Errorf("resume: %w", err)
			}
			if id != "" {
				settled = append(settled, urlChange{Item: it, State: done})
				c.pages.Add(1)
				continue
			}
		}
		if it.requisite() && it.ViaID == "" && it.Via != "" {
			id, err := a.Captured(ctx, it.Via, it.ViaTime)
			if err != nil {
				return nil, fmt.Errorf("resume: %w", err)
			}
			it.ViaID = id
		}
		pending = append(pending, it)
	}
	if len(settled) > 0 {
		if err := c.fr.record(settled); err != nil {
			return nil, fmt.Errorf("resume: frontier: %w", err)
		}
	}
	slices.SortStableFunc(pending, func(a, b item) int { return a.Depth - b.Depth })
	return pending, nil
}

// inScope reports whether a canonical URL is one of the crawl's pages.
func (c *Crawl) inScope(u *url.URL) bool { return c.scope.contains(u) }

// full reports whether MaxPages captures are made or reserved.
func (c *Crawl) full() bool {
	return c.cfg.MaxPages > 0 && c.pages.Load() >= int64(c.cfg.MaxPages)
}

// reserve takes one page of the MaxPages budget; false when none is left.
func (c *Crawl) reserve() bool {
	if c.cfg.MaxPages <= 0 {
		c.pages.Add(1)
		return true
	}
	for {
		n := c.pages.Load()
		if n >= int64(c.cfg.MaxPages) {
			return false
		}
		if c.pages.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// noProgress is the Progress of a crawl nobody watches.
type noProgress struct{}

func (noProgress) Queued(int) {}
func (noProgress) Settled()   {}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
