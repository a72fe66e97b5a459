package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/store"
)

// runCrawl crawls the seeds file politely into the sealed repository and prints a summary.
func runCrawl(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var verbose, restore bool
	cfg, positional, code, ok := cli{
		name: "crawl",
		usage: "usage: archivectl crawl [--agent TOKEN] [--user-agent STRING] [--delay DUR] [--max-pages N] [--max-depth N] [--max-url-length N] [--max-path-depth N] [--max-path-repeats N] [--scope S] [--include P]... [--exclude P]... [--no-requisites] [--sitemaps M] [--header-embargo] [--browser] [--partition K/N] [--public URL] [--node NAME] [--sealed URL [--restore]] [--data DIR] [--config FILE] SEEDS\n\n" +
			fmt.Sprintf("Exit status: 0 done (or nothing of the seeds in this partition), 1 failed (one line on stderr;\n"+
				"also when nothing could be captured), 2 bad usage, %d stopped by SIGINT (Ctrl-C) and %d stopped\n"+
				"by SIGTERM (systemctl stop): in-flight pages are sealed and the files closed, and the same command\n"+
				"resumes the crawl.\n\n", exitSIGINT, exitSIGTERM),
		config: true,
		flags: func(fs *flagSet, c *Config) {
			fs.stringKey(&c.Crawl.Agent, "agent", "crawl.agent", "product token matched against robots.txt groups")
			fs.stringKey(&c.Crawl.UserAgent, "user-agent", "crawl.user_agent", "User-Agent header (default: the token and the config's contact URL)")
			fs.durationKey(&c.Crawl.Delay, "delay", "crawl.delay", "minimum delay between requests to one origin; robots.txt Crawl-delay still applies")
			fs.intKey(&c.Crawl.MaxPages, "max-pages", "crawl.max_pages", "stop after N pages (0: no limit)")
			fs.intKey(&c.Crawl.MaxDepth, "max-depth", "crawl.max_depth", "follow links at most N deep from a seed (0: no limit)")
			fs.intKey(&c.Crawl.MaxURLLength, "max-url-length", "crawl.max_url_length", "crawl and follow URLs of at most N bytes; a longer seed is an error")
			fs.intKey(&c.Crawl.MaxPathDepth, "max-path-depth", "crawl.max_path_depth", "follow links of at most N path segments (0: no limit)")
			fs.intKey(&c.Crawl.MaxPathRepeats, "max-path-repeats", "crawl.max_path_repeats", "follow links repeating a path segment at most N times in a row (0: no limit)")
			reachFlags(fs, &c.Crawl)
			fs.boolKey(&c.Crawl.Browser.Enabled, "browser", "crawl.browser.enabled", "render HTML pages in headless Chromium; every request it makes is fetched politely under its origin's own robots.txt and embargo")
			fs.stringKey(&c.Crawl.Partition, "partition", "crawl.partition", "crawl only the origins of partition K of N (0 ≤ K < N, e.g. 0/3): give every node the same seeds")
			sharedFlags(fs, c)
			fs.stringKey(&c.Sealed, "sealed", "sealed", "keep the sealed side beyond this disk in s3://BUCKET/PREFIX or file:///DIR, a store of its own (credentials from sealed_store.profile): sealed files uploaded once closed, index.db and frontier.db checkpointed")
			fs.BoolVar(&restore, "restore", false, "rebuild an empty --data directory from the last checkpoint in the --sealed store, then go on crawling")
			fs.BoolVar(&verbose, "v", false, "log every decision, not only notable events")
		},
	}.parse(args, stdout, stderr)
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
	seeds, err := crawler.ReadSeedsMax(f, cfg.Crawl.MaxURLLength)
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: %s: %v\n", positional[0], err)
		return 2
	}
	if len(seeds) == 0 {
		fmt.Fprintf(stderr, "archivectl crawl: %s lists no URL: add one absolute http(s) URL a line\n", positional[0])
		return 2
	}
	if st, err := os.Stat(cfg.Data); err == nil && !st.IsDir() {
		fmt.Fprintf(stderr, "archivectl crawl: %s is a file, not a data directory; pass --data DIR\n", cfg.Data)
		return 1
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
	cc.ScopedSeeds = seeds
	cc.Log = slog.New(slog.NewTextHandler(prog.writer(), &slog.HandlerOptions{Level: level}))
	cc.Progress = prog
	if cc.HandOff, err = handOff(ctx, cfg, cc.Partition); err != nil {
		prog.stop()
		fmt.Fprintf(stderr, "archivectl crawl: %v\n", err)
		return 1
	}
	if cc.Offsite, err = offsiteCrawl(ctx, cfg, restore, cc.Log); err != nil {
		prog.stop()
		fmt.Fprintf(stderr, "archivectl crawl: %v\n", err)
		return 1
	}
	sum, ran, err := crawlStore(ctx, cc, storeOptions(cfg))
	prog.stop()
	if errors.Is(err, crawler.ErrNoSeedInPartition) {
		fmt.Fprintf(stderr, "archivectl crawl: no seed's origin falls in partition %s: nothing for this node to crawl\n", cc.Partition)
		return 0
	}
	if ran {
		sum.WriteTo(stdout)
	}
	if err == nil {
		err = nothingCaptured(sum)
	}
	if errors.Is(err, crawler.ErrInterrupted) { // stopped by a signal: in-flight pages sealed, files closed
		fmt.Fprintf(stderr, "archivectl crawl: %v\n", err)
		return interruptedStatus(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "archivectl crawl: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "archivectl crawl: done; the captures are sealed in %s\n", layout.Sealed(cfg.Data))
	return 0
}

// nothingCaptured is the error of a crawl that finished without a page, this run or an earlier
// one, while some URL failed or was disallowed by an unreachable robots.txt: the seeds' origins
// could not be crawled. A crawl whose robots.txt files disallow everything succeeds.
func nothingCaptured(sum crawler.Summary) error {
	failed := 0
	for _, n := range sum.Errors {
		failed += n
	}
	if sum.Pages+sum.Resumed > 0 || failed+sum.Unreachable == 0 {
		return nil
	}
	var why []string
	if failed > 0 {
		why = append(why, fmt.Sprintf("%d URL(s) failed (see errors above)", failed))
	}
	if sum.Unreachable > 0 {
		why = append(why, fmt.Sprintf("%d disallowed because their robots.txt answered 429 or 5xx", sum.Unreachable))
	}
	return fmt.Errorf("no page was captured: %s; check that the seeds' origins answer, then run again", strings.Join(why, ", "))
}

// crawlStore runs one crawl of cfg.Seeds into the store of cfg.DataDir, logging to cfg.Log.
// The crawl takes frontier.db before the store is opened, so that a second crawl of the same
// directory is told that the crawl is busy. ran is false when the crawl could not start;
// otherwise the summary is returned whatever the error.
func crawlStore(ctx context.Context, cfg crawler.Config, opt store.Options) (sum crawler.Summary, ran bool, err error) {
	opt.Logger = cfg.Log
	if opt.LockTimeout == 0 {
		opt.LockTimeout = cfg.LockTimeout // 0 for both: lockfile.DefaultTimeout
	}
	cr, err := crawler.Open(cfg)
	if err != nil {
		return sum, false, err
	}
	defer cr.Close()
	st, err := store.Open(cfg.DataDir, opt)
	if err != nil {
		return sum, false, fmt.Errorf("open the store: %w", err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			cfg.Log.Error("closing the store", "err", err)
		}
	}()
	for _, p := range st.Recovered() {
		cfg.Log.Warn("the store recovered from an earlier crash", "problem", p.String())
	}
	sum, err = cr.Run(ctx, crawler.StoreArchive(st))
	return sum, true, err
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
