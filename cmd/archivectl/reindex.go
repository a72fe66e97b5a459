package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/release"
)

// runReindexPublic rebuilds the public index (public/index/) from the public CDXJ files. It
// needs public/ only, so a lookup-only machine can run it; it waits for a running release pass.
func runReindexPublic(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, pos, code, ok := cli{
		name: "reindex-public",
		usage: "usage: archivectl reindex-public [--data DIR] [--config FILE]\n" +
			"Rebuilds the lookup's public index (public/index/) from the public CDXJ files.\n",
		config: true,
	}.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		fmt.Fprintf(stderr, "archivectl reindex-public: unexpected argument %q; see archivectl reindex-public -h\n", pos[0])
		return 2
	}
	found, err := archiveIn(cfg.Data)
	if err != nil && !errors.Is(err, errNoArchive) {
		fmt.Fprintf(stderr, "archivectl reindex-public: %v\n", err)
		return 1
	}
	if !found[layout.PublicDir] {
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
