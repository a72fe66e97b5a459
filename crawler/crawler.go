// Package crawler crawls seed origins politely into the sealed store: a persisted frontier,
// one request in flight per origin with delays and back-off, robots.txt decisions on every
// URL, raw exchanges recorded for WARC, links followed inside the seeds' origins.
package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/layout"
	"github.com/archivectl/archivectl/store/lockfile"
	"github.com/archivectl/archivectl/store/surt"
)

// Archive is where captures go: the sealed store, or a fake in tests.
type Archive interface {
	Seal(ctx context.Context, caps []store.Capture) ([]store.Entry, error)
}

// Config is one crawl's settings. Zero durations and sizes take the defaults noted.
type Config struct {
	DataDir               string        // frontier.db lives here; the store too unless Archive is set
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
	LockTimeout           time.Duration // how long to wait for a busy frontier.db or index.db (default lockfile.DefaultTimeout, 5 s)

	Store    store.Options                                   // used to open the store in DataDir when Archive is nil
	Archive  Archive                                         // nil: the store in DataDir
	Captured func(rawURL string, at time.Time) (bool, error) // nil: the store's index; was this capture sealed?

	Log      io.Writer  // log lines (and the progress display on a terminal); nil discards
	Level    slog.Level // least level logged
	Terminal bool       // Log is a terminal: draw a progress display
	Now      func() time.Time
}

// ErrInterrupted is returned when the context was cancelled before the crawl finished.
var ErrInterrupted = errors.New("crawl interrupted: run the same command again to resume it")

// maxRedirects bounds a chain of redirects followed from one URL.
const maxRedirects = 10

// crawl is one running crawl.
type crawl struct {
	cfg        Config
	ctx        context.Context
	cancel     context.CancelCauseFunc
	log        *slog.Logger
	now        func() time.Time
	fr         *frontier
	fetch      *fetcher
	robots     *robots.Cache
	sealer     *sealer
	sem        chan struct{}
	scope      map[string]bool
	stats      *stats
	prog       *progress
	pages      atomic.Int64 // pages reserved against MaxPages
	sealErrors atomic.Int32 // seals failed in a row
	mu         sync.Mutex
	origins    map[string]*originState
	wg         sync.WaitGroup
}

// Run crawls cfg.Seeds until the frontier is empty, a limit is reached or ctx is cancelled
// (then in-flight fetches finish and are sealed, and the error is ErrInterrupted).
// A crawl of the same seeds killed earlier is resumed from DataDir/frontier.db.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	cfg = withDefaults(cfg)
	c := &crawl{cfg: cfg, now: cfg.Now, sem: make(chan struct{}, cfg.Concurrency), scope: map[string]bool{}, origins: map[string]*originState{}}
	c.stats = newStats(c.now())
	c.prog = newProgress(cfg.Log, cfg.Terminal)
	c.log = slog.New(slog.NewTextHandler(c.prog.writer(), &slog.HandlerOptions{Level: cfg.Level}))
	defer c.prog.stop()

	seeds := make([]string, len(cfg.Seeds))
	for i, s := range cfg.Seeds {
		seeds[i] = s.String()
		c.scope[origin(s)] = true
	}
	if len(seeds) == 0 {
		return c.stats.summary(c.now()), errors.New("no seeds: the seeds file lists no URL")
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return c.stats.summary(c.now()), fmt.Errorf("data directory: %w", err)
	}
	fr, res, err := openFrontier(layout.Frontier(cfg.DataDir), seeds, cfg.LockTimeout)
	if err != nil {
		return c.stats.summary(c.now()), err
	}
	c.fr = fr
	defer fr.close()

	archive, closeArchive, err := c.openArchive()
	if err != nil {
		return c.stats.summary(c.now()), err
	}
	defer closeArchive()
	pending, err := c.resume(res)
	if err != nil {
		return c.stats.summary(c.now()), err
	}

	c.fetch = newFetcher(cfg.UserAgent, cfg.Timeout, c.now)
	defer c.fetch.close()
	c.robots = robots.NewCache(c.robotsFetch, c.now, robots.CacheOptions{UnreachableAllowAfter: time.Duration(cfg.RobotsUnreachableDays) * 24 * time.Hour})
	c.sealer = newSealer(archive, fr, c.log)
	go c.sealer.run()

	c.ctx, c.cancel = context.WithCancelCause(ctx)
	defer c.cancel(nil)
	seedItems := make([]item, len(seeds))
	for i, s := range seeds {
		seedItems[i] = item{URL: s}
	}
	seedItems = fr.claim(seedItems)
	if err := fr.add(seedItems); err != nil {
		c.sealer.close()
		return c.stats.summary(c.now()), fmt.Errorf("frontier: %w", err)
	}
	if res.Fresh {
		c.log.Info("crawl started", "seeds", len(seeds), "data", cfg.DataDir)
	} else {
		c.log.Info("crawl resumed", "pending", len(pending), "sealed", res.Done, "data", cfg.DataDir)
	}
	c.enqueue(append(pending, seedItems...))
	c.wg.Wait()
	c.log.Debug("workers done; sealing what is left")
	c.sealer.close()
	sum := c.stats.summary(c.now())
	sum.Frontier = fr.size()
	sum.PeakRSS = peakRSS()
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

// openArchive returns cfg.Archive, or opens the store in DataDir (and its index answers
// Captured); the function returned closes what was opened.
func (c *crawl) openArchive() (Archive, func(), error) {
	if c.cfg.Archive != nil {
		if c.cfg.Captured == nil {
			return nil, nil, errors.New("crawler: Config.Captured is needed with Config.Archive")
		}
		return c.cfg.Archive, func() {}, nil
	}
	opt := c.cfg.Store
	if opt.Logger == nil {
		opt.Logger = c.log
	}
	if opt.LockTimeout == 0 {
		opt.LockTimeout = c.cfg.LockTimeout
	}
	st, err := store.Open(c.cfg.DataDir, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("open the store: %w", err)
	}
	for _, p := range st.Recovered() {
		c.log.Warn("the store recovered from an earlier crash", "problem", p.String())
	}
	if c.cfg.Captured == nil {
		c.cfg.Captured = indexCaptured(st.Index())
	}
	return st, func() {
		if err := st.Close(); err != nil {
			c.log.Error("closing the store", "err", err)
		}
	}, nil
}

// withDefaults fills the zero values of cfg.
func withDefaults(cfg Config) Config {
	if cfg.Agent == "" {
		cfg.Agent = "archivectl"
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = cfg.Agent
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 16
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 10 << 20
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = 5 * time.Minute
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = time.Second
	}
	if cfg.LockTimeout <= 0 {
		cfg.LockTimeout = lockfile.DefaultTimeout
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

// resume settles URLs whose seal may have been cut short and returns the pending work, shallowest first.
func (c *crawl) resume(res resumed) ([]item, error) {
	c.pages.Store(int64(res.Done))
	c.stats.resumed(res.Done)
	var settled []mark
	pending := res.Pending[:0]
	for _, it := range res.Pending {
		at, ok := res.Sealing[it.URL]
		if ok {
			sealed, err := c.cfg.Captured(it.URL, at)
			if err != nil {
				return nil, fmt.Errorf("resume: %w", err)
			}
			if sealed {
				settled = append(settled, mark{Item: it, State: done})
				c.pages.Add(1)
				continue
			}
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

// indexCaptured asks the store's index whether rawURL has a capture made at at (to the second).
func indexCaptured(ix *store.Index) func(string, time.Time) (bool, error) {
	return func(rawURL string, at time.Time) (bool, error) {
		key, err := surt.Key(rawURL)
		if err != nil {
			return false, nil
		}
		found := false
		err = ix.ByURL(key, func(e store.Entry) error {
			if d := e.Time.Sub(at); e.URL == rawURL && d > -time.Second && d < time.Second {
				found = true
			}
			return nil
		})
		return found, err
	}
}

// inScope reports whether a canonical URL belongs to a seed's origin.
func (c *crawl) inScope(u *url.URL) bool { return c.scope[origin(u)] }

// full reports whether MaxPages captures are made or reserved.
func (c *crawl) full() bool {
	return c.cfg.MaxPages > 0 && c.pages.Load() >= int64(c.cfg.MaxPages)
}

// reserve takes one page of the MaxPages budget; false when none is left.
func (c *crawl) reserve() bool {
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
