package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/archivectl/archivectl/crawler/robots/selfcheck"
	"github.com/archivectl/archivectl/export"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/lookup"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/mirror"
	"github.com/archivectl/archivectl/public/pubindex"
	"github.com/archivectl/archivectl/release"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// shutdownGrace bounds how long serve waits for open requests and a running pass on SIGINT/SIGTERM.
const shutdownGrace = 30 * time.Second

// runServe serves the lookup API and page over DATA/public; with --schedule it also runs
// release passes as a daemon. On SIGINT/SIGTERM it finishes the running pass and the open
// requests, then exits 0.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var initEmpty bool
	var nowFlag string
	cfg, pos, code, ok := cli{
		name:   "serve",
		usage:  "usage: archivectl serve [--listen ADDR] [--check on|paste|off] [--check-private] [--replay-url URL|off] [--schedule CRON] [--init] [--now T] [--public URL] [--node NAME] [--data DIR] [--config FILE]\n",
		config: true,
		flags: func(fs *flagSet, c *Config) {
			sharedFlags(fs, c)
			fs.BoolVar(&initEmpty, "init", false, "serve a missing or empty data directory as a new, empty archive (a service started before the first crawl)")
			fs.StringVar(&nowFlag, "now", "", "the lookup's clock stands still at this instant, RFC 3339 or a date YYYY-MM-DD (its midnight, UTC): countdowns and due captures as of then (states never depend on it); not with --schedule")
			fs.stringKey(&c.Serve.Listen, "listen", "serve.listen", "address to serve on (loopback only unless you say otherwise)")
			fs.stringKey(&c.Serve.Check, "check", "serve.check", "the publisher self-check at /check and POST /api/v1/check: on, paste (pasted robots.txt only, nothing fetched) or off")
			fs.boolKey(&c.Serve.CheckPrivate, "check-private", "serve.check_private", "let the self-check fetch robots.txt from loopback and private addresses")
			fs.stringKey(&c.Serve.ReplayURL, "replay-url", "serve.replay_url", `the ReplayWeb.page instance a released page's "Open as page" link opens (its WACZ, /api/v1/wacz, as the source), or off`)
			fs.stringKey(&c.Release.Schedule, "schedule", "release.schedule", `also run release passes on this cron schedule, UTC (e.g. "@hourly", "*/15 * * * *")`)
		},
	}.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "archivectl serve: unexpected argument %q; see archivectl serve -h\n", pos[0])
		return 2
	}
	var at time.Time
	if nowFlag != "" {
		t, err := export.ParseTime(nowFlag)
		if err != nil {
			fmt.Fprintf(stderr, "archivectl serve: --now %q: %v\n", nowFlag, err)
			return 2
		}
		if cfg.Release.Schedule != "" {
			fmt.Fprintf(stderr, "archivectl serve: --now with --schedule: the release daemon runs passes by this machine's clock; drop one of them\n")
			return 2
		}
		at = t.UTC()
	}
	shared, err := sharedStore(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "archivectl serve: %v\n", err)
		return 1
	}
	if shared != nil && cfg.Release.Schedule == "" {
		// A lookup node: it serves the shared store and keeps only its view in DATA/mirror.
		if err := os.MkdirAll(cfg.Data, 0o755); err != nil {
			fmt.Fprintf(stderr, "archivectl serve: %v\n", err)
			return 1
		}
	} else if _, err := archiveIn(cfg.Data); err != nil {
		if !initEmpty || !errors.Is(err, errNoArchive) {
			if errors.Is(err, errNoArchive) {
				err = fmt.Errorf("%w, or --init to start an empty archive there", err)
			}
			fmt.Fprintf(stderr, "archivectl serve: %v\n", err)
			return 1
		}
		if err := os.MkdirAll(cfg.Data, 0o755); err != nil {
			fmt.Fprintf(stderr, "archivectl serve: --init: %v\n", err)
			return 1
		}
	}
	opt := serveOptions{data: cfg.Data, listen: cfg.Serve.Listen, schedule: cfg.Release.Schedule, release: releaseOptions(cfg), replay: cfg.Serve.ReplayURL}
	if !at.IsZero() {
		opt.now = func() time.Time { return at }
	}
	opt.logger = slog.New(slog.NewTextHandler(stderr, nil))
	if shared != nil {
		opt.shared, opt.mirror = shared, mirrorDir(cfg)
		opt.release.Publish = publisher(cfg, shared, opt.logger, nil)
	}
	if cfg.Serve.Check != "off" {
		ua := cfg.Crawl.UserAgent
		if ua == "" {
			ua = defaultUserAgent(cfg.Crawl.Agent, cfg.Contact)
		}
		opt.check = &selfcheck.Options{Agent: cfg.Crawl.Agent, UserAgent: ua, NoFetch: cfg.Serve.Check == "paste",
			AllowPrivate: cfg.Serve.CheckPrivate, Now: opt.now, Logger: opt.logger}
	}
	opt.ready = func(addr string) { fmt.Fprintf(stdout, "archivectl serve: http://%s/\n", addr) }
	if err := serve(ctx, opt); err != nil {
		fmt.Fprintf(stderr, "archivectl serve: %v\n", err)
		var u usageError
		if errors.As(err, &u) {
			return 2
		}
		return 1
	}
	return 0
}

// listen opens the lookup's address.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w; choose another --listen", addr, err)
	}
	return ln, nil
}

// serveOptions are what serve needs; demo uses it too.
type serveOptions struct {
	data, listen, schedule string
	public                 string          // the public directory the lookup serves; DATA/public when empty
	listener               net.Listener    // when set, served instead of listening on listen
	release                release.Options // for the daemon; its Logger is set from logger
	logger                 *slog.Logger
	ready                  func(addr string)  // called once the listener is open
	now                    func() time.Time   // the lookup's clock (countdowns, calendar); time.Now when nil
	shared                 objectstore.Store  // when set, the lookup serves its view (mirror) instead of DATA/public
	mirror                 string             // the view's directory
	check                  *selfcheck.Options // the publisher self-check beside the lookup; nil: none
	replay                 string             // lookup.Options.ReplayURL
}

// usageError is a bad flag value found after parsing (e.g. a cron spec that does not parse).
type usageError struct{ error }

// serve runs the lookup service (and the release daemon when a schedule is set) until ctx ends,
// then shuts both down gracefully. It reads only DATA/public; the daemon alone touches the sealed side.
func serve(ctx context.Context, opt serveOptions) error {
	log := opt.logger
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	var daemon *release.Daemon
	if opt.schedule != "" {
		ro := opt.release
		ro.Logger = log
		r := release.New(opt.data, ro)
		d, err := release.NewDaemon(r, opt.schedule, time.Now, log)
		if err != nil {
			return usageError{err}
		}
		if err := r.Register(reg); err != nil {
			return fmt.Errorf("release metrics: %w", err)
		}
		daemon = d
	}

	pub := layout.Public(opt.data)
	if opt.public != "" {
		pub = opt.public
	}
	lopt := lookup.Options{
		Now: opt.now, Logger: log, Registerer: reg, Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		ReleaseMetrics: daemon == nil, // without a daemon here, the release metrics come from state.json
		ReplayURL:      opt.replay,
	}
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	var srv *lookup.Server
	var err error
	if opt.shared != nil {
		m, merr := mirror.Open(ctx, opt.shared, opt.mirror, mirror.Options{Logger: log})
		if merr != nil {
			return merr
		}
		go m.Watch(watchCtx)
		srv, err = lookup.New(m.FS(), lopt)
	} else {
		srv, err = lookup.Open(pub, lopt)
	}
	var damage *pubindex.DamageError
	switch {
	case errors.As(err, &damage): // it names the file and the command: add the data directory
		return fmt.Errorf("%w --data %s", err, opt.data)
	case err != nil:
		return fmt.Errorf("cannot open the public index of %s: %w; run archivectl verify", opt.data, err)
	}
	ln := opt.listener
	if ln == nil {
		if ln, err = listen(opt.listen); err != nil {
			return err
		}
	}
	addr := ln.Addr().(*net.TCPAddr)
	if !addr.IP.IsLoopback() {
		log.Warn("listening beyond loopback: the lookup is reachable from other machines", "addr", addr.String())
	}
	var handler http.Handler = srv
	if opt.check != nil {
		handler = selfcheck.New(*opt.check).Wrap(srv)
		log.Info("publisher self-check at /check and POST /api/v1/check", "fetch", !opt.check.NoFetch, "private", opt.check.AllowPrivate)
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      5 * time.Minute, // a large record streams; record, captures and CDX answers set per-write deadlines within it (lookup/held.go)
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go srv.Watch(watchCtx)
	go gcFloor(watchCtx)
	if daemon != nil {
		daemon.Start()
		log.Info("release daemon started", "schedule", opt.schedule)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info("lookup listening", "addr", addr.String(), "data", opt.data)
	if opt.ready != nil {
		opt.ready(addr.String())
	}

	select {
	case err := <-served:
		if daemon != nil {
			daemon.Stop(context.Background())
		}
		return fmt.Errorf("lookup server stopped: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing open requests and any running release pass")
	grace, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	errs := make(chan error, 2)
	go func() { errs <- hs.Shutdown(grace) }()
	go func() {
		if daemon == nil {
			errs <- nil
			return
		}
		errs <- daemon.Stop(grace)
	}()
	err = errors.Join(<-errs, <-errs)
	stopWatch()
	if err != nil {
		return fmt.Errorf("shutdown was not clean: %w", err)
	}
	log.Info("stopped")
	return nil
}
