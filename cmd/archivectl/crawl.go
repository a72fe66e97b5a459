package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/layout"
)

// runCrawl crawls the seeds file politely into the sealed repository and prints a summary.
func runCrawl(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: archivectl crawl [--agent TOKEN] [--user-agent STRING] [--delay DUR] [--max-pages N] [--max-depth N] [--scope S] [--include P]... [--exclude P]... [--no-requisites] [--sitemaps M] [--header-embargo] [--data DIR] [--config FILE] SEEDS")
		fs.PrintDefaults()
	}
	var common commonFlags
	common.register(fs)
	agent := fs.String("agent", "", "product token matched against robots.txt groups (default archivectl)")
	userAgent := fs.String("user-agent", "", "User-Agent header (default: the token and the config's contact URL)")
	delay := fs.Duration("delay", 0, "minimum delay between requests to one origin (default 1s; robots.txt Crawl-delay still applies)")
	maxPages := fs.Int("max-pages", 0, "stop after N pages (0: no limit)")
	maxDepth := fs.Int("max-depth", 0, "follow links at most N deep from a seed (0: no limit)")
	verbose := fs.Bool("v", false, "log every decision, not only notable events")
	rf := registerReachFlags(fs)
	var positional []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(positional) != 1 {
		fmt.Fprintln(stderr, "archivectl crawl: give exactly one SEEDS file (one URL a line); see archivectl crawl -h")
		return 2
	}
	cfg, err := common.load()
	if err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: %v\n", err)
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cc := cfg.Crawl
	if set["agent"] {
		cc.Agent = *agent
	}
	if set["user-agent"] {
		cc.UserAgent = *userAgent
	}
	if set["delay"] {
		cc.Delay = *delay
	}
	if set["max-pages"] {
		cc.MaxPages = *maxPages
	}
	if set["max-depth"] {
		cc.MaxDepth = *maxDepth
	}
	rf.apply(set, &cc)
	switch {
	case !robots.ValidAgent(cc.Agent):
		fmt.Fprintf(stderr, "archivectl crawl: --agent %q is not a product token: use letters, '-' and '_' only\n", cc.Agent)
		return 2
	case cc.Delay < 0 || cc.MaxPages < 0 || cc.MaxDepth < 0:
		fmt.Fprintln(stderr, "archivectl crawl: --delay, --max-pages and --max-depth cannot be negative")
		return 2
	}
	if cc.UserAgent == "" {
		cc.UserAgent = defaultUserAgent(cc.Agent, cfg.Contact)
	}

	f, err := os.Open(positional[0])
	if err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: cannot read the seeds file: %v\n", err)
		return 2
	}
	seeds, err := crawler.ReadSeeds(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: %s: %v\n", positional[0], err)
		return 2
	}
	if len(seeds) == 0 {
		fmt.Fprintf(stderr, "archivectl crawl: %s lists no URL: add one absolute http(s) URL a line\n", positional[0])
		return 2
	}
	ccfg := crawler.Config{
		DataDir:               cfg.Data,
		ScopedSeeds:           seeds,
		Agent:                 cc.Agent,
		UserAgent:             cc.UserAgent,
		Delay:                 cc.Delay,
		MaxDelay:              cc.MaxDelay,
		MaxRetryAfter:         cc.MaxRetryAfter,
		Concurrency:           cc.Concurrency,
		MaxPages:              cc.MaxPages,
		MaxDepth:              cc.MaxDepth,
		MaxBody:               cc.MaxBody,
		Timeout:               cc.Timeout,
		Retries:               cc.Retries,
		RetryBackoff:          cc.RetryBackoff,
		RobotsUnreachableDays: cc.RobotsUnreachableDays,
	}
	if err := reachConfig(cc, &ccfg); err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: %v\n", strings.ReplaceAll(err.Error(), "\n", "; "))
		return 2
	}
	if err := os.MkdirAll(cfg.Data, 0o755); err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: cannot create the data directory: %v\n", err)
		return 1
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	prog := newProgress(stderr, isTerminal(stderr))
	ccfg.Log = slog.New(slog.NewTextHandler(prog.writer(), &slog.HandlerOptions{Level: level}))
	ccfg.Progress = prog
	sum, err := crawlStore(ctx, ccfg, store.Options{
		Software:     "archivectl",
		Operator:     cfg.Operator,
		Contact:      cfg.Contact,
		RobotsPolicy: "obey",
		MaxFileSize:  cfg.Store.MaxFileSize,
		Digest:       cfg.Store.Digest,
	})
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
