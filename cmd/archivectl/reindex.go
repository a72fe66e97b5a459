package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store/layout"
)

// runReindexPublic rebuilds the public index (public/index/) from the public CDXJ files. It
// needs public/ only, so a lookup-only machine can run it; it waits for a running release pass.
func runReindexPublic(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reindex-public", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: archivectl reindex-public [--data DIR] [--config FILE]")
		fmt.Fprintln(stderr, "Rebuilds the lookup's public index (public/index/) from the public CDXJ files.")
		fs.PrintDefaults()
	}
	var common commonFlags
	common.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "archivectl reindex-public: unexpected argument %q; see archivectl reindex-public -h\n", fs.Arg(0))
		return 2
	}
	cfg, err := common.load()
	if err != nil {
		fmt.Fprintf(stderr, "archivectl reindex-public: %v\n", err)
		return 2
	}
	if st, err := os.Stat(layout.Public(cfg.Data)); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "archivectl reindex-public: %s holds no public side (no %s/); pass --data\n", cfg.Data, layout.PublicDir)
		return 1
	}
	start := time.Now()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m, err := release.RebuildIndex(ctx, cfg.Data, release.Options{Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "archivectl reindex-public: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "rebuilt the public index of %s from its CDXJ files in %s: generation %d, %d released and %d embargoed captures, %d malformed lines left out\n",
		cfg.Data, time.Since(start).Round(time.Millisecond), m.Generation, m.Stats.Released, m.Stats.Embargoed, m.Stats.Malformed)
	return 0
}
