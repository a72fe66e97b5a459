package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/layout"
)

// runCrawl crawls the seeds file politely into the sealed repository and prints a summary.
func runCrawl(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var verbose bool
	cfg, positional, code, ok := cli{
		name:   "crawl",
		usage:  "usage: archivectl crawl [--agent TOKEN] [--user-agent STRING] [--delay DUR] [--max-pages N] [--max-depth N] [--data DIR] [--config FILE] SEEDS\n",
		config: true,
		flags: func(fs *flagSet, c *Config) {
			fs.stringKey(&c.Crawl.Agent, "agent", "crawl.agent", "product token matched against robots.txt groups")
			fs.stringKey(&c.Crawl.UserAgent, "user-agent", "crawl.user_agent", "User-Agent header (default: the token and the config's contact URL)")
			fs.durationKey(&c.Crawl.Delay, "delay", "crawl.delay", "minimum delay between requests to one origin; robots.txt Crawl-delay still applies")
			fs.intKey(&c.Crawl.MaxPages, "max-pages", "crawl.max_pages", "stop after N pages (0: no limit)")
			fs.intKey(&c.Crawl.MaxDepth, "max-depth", "crawl.max_depth", "follow links at most N deep from a seed (0: no limit)")
			fs.BoolVar(&verbose, "v", false, "log every decision, not only notable events")
		},
	}.parse(args, stderr)
	if !ok {
		return code
	}
	if len(positional) != 1 {
		fmt.Fprintln(stderr, "archivectl crawl: give exactly one SEEDS file (one URL a line); see archivectl crawl -h")
		return 2
	}
	f, err := os.Open(positional[0])
	if err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: cannot read the seeds file: %v\n", err)
		return 2
	}
	seeds, err := crawler.ParseSeeds(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: %s: %v\n", positional[0], err)
		return 2
	}
	if len(seeds) == 0 {
		fmt.Fprintf(stderr, "archivectl crawl: %s lists no URL: add one absolute http(s) URL a line\n", positional[0])
		return 2
	}
	if err := os.MkdirAll(cfg.Data, 0o755); err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: cannot create the data directory: %v\n", err)
		return 1
	}
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	prog := newProgress(stderr, isTerminal(stderr))
	cc := crawlerConfig(cfg)
	cc.Seeds = seeds
	cc.Log = slog.New(slog.NewTextHandler(prog.writer(), &slog.HandlerOptions{Level: level}))
	cc.Progress = prog
	sum, err := crawlStore(ctx, cc, storeOptions(cfg))
	prog.stop()
	sum.WriteTo(stdout)
	if err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "archivectl crawl: done; the captures are sealed in %s\n", layout.Sealed(cfg.Data))
	return 0
}

// crawlStore runs one crawl of cfg.Seeds into the store of cfg.DataDir, logging to cfg.Log.
// The crawl takes frontier.db before the store is opened, so that a second crawl of the same
// directory is told that the crawl is busy. The summary is returned whatever the error.
func crawlStore(ctx context.Context, cfg crawler.Config, opt store.Options) (crawler.Summary, error) {
	start := time.Now()
	opt.Logger = cfg.Log
	if opt.LockTimeout == 0 {
		opt.LockTimeout = cfg.LockTimeout // 0 for both: lockfile.DefaultTimeout
	}
	cr, err := crawler.Open(cfg)
	if err != nil {
		return crawler.Summary{Duration: time.Since(start)}, err
	}
	defer cr.Close()
	st, err := store.Open(cfg.DataDir, opt)
	if err != nil {
		return crawler.Summary{Duration: time.Since(start)}, fmt.Errorf("open the store: %w", err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			cfg.Log.Error("closing the store", "err", err)
		}
	}()
	for _, p := range st.Recovered() {
		cfg.Log.Warn("the store recovered from an earlier crash", "problem", p.String())
	}
	return cr.Run(ctx, crawler.StoreArchive(st))
}

// isTerminal reports whether w is a character device (a terminal) that can draw progress.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
