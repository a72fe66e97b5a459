package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// runVerify checks the sealed repository against its index and lists each inconsistency;
// with --reindex it first rebuilds index.db from the sealed WARC files alone.
func runVerify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var reindex bool
	cfg, pos, code, ok := cli{
		name: "verify",
		usage: "usage: archivectl verify [--reindex] [--public URL] [--data DIR] [--config FILE]\n" +
			"Checks every sealed WARC record (syntax, digests) against index.db; exit 1 lists each problem.\n" +
			"With a shared store (--public), also that every object of each node's latest generation is there.\n",
		config: true,
		flags: func(fs *flagSet, c *Config) {
			sharedFlags(fs, c)
			fs.BoolVar(&reindex, "reindex", false, "first rebuild index.db from the sealed WARC files alone (release states are kept when the old index is readable)")
		},
	}.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		fmt.Fprintf(stderr, "archivectl verify: unexpected argument %q; see archivectl verify -h\n", pos[0])
		return 2
	}
	found, err := archiveIn(cfg.Data)
	if err != nil {
		fmt.Fprintf(stderr, "archivectl verify: %v\n", err)
		return 1
	}
	if !found[layout.SealedDir] {
		fmt.Fprintf(stderr, "archivectl verify: %s holds no sealed repository (no %s/); crawl into it first or pass --data\n", cfg.Data, layout.SealedDir)
		return 1
	}
	if reindex {
		start := time.Now()
		skipped, err := store.Reindex(ctx, cfg.Data)
		if err != nil {
			fmt.Fprintf(stderr, "archivectl verify: reindex: %v\n", err)
			return 1
		}
		for _, p := range skipped {
			fmt.Fprintf(stdout, "reindex skipped: %s\n", p)
		}
		restored, err := release.Restore(ctx, cfg.Data, lockfile.DefaultTimeout)
		if err != nil {
			fmt.Fprintf(stderr, "archivectl verify: reindex: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "reindexed %s from the sealed WARC files in %s (%d release states restored from public/)\n",
			layout.Index(cfg.Data), time.Since(start).Round(time.Millisecond), restored)
	}
	problems, err := store.Verify(ctx, cfg.Data)
	if err != nil {
		fmt.Fprintf(stderr, "archivectl verify: %v\n", err)
		return 1
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	public, err := release.Verify(ctx, cfg.Data) // the public side: shards, tombstones, CDXJ, audit log
	if err != nil {
		fmt.Fprintf(stderr, "archivectl verify: public side: %v\n", err)
		return 1
	}
	for _, p := range public {
		fmt.Fprintln(stdout, "public: "+p)
	}
	shared, err := sharedStore(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "archivectl verify: %v\n", err)
		return 1
	}
	if shared != nil {
		inStore, err := publish.Verify(ctx, shared, false)
		if err != nil {
			fmt.Fprintf(stderr, "archivectl verify: %v\n", err)
			return 1
		}
		for _, p := range inStore {
			fmt.Fprintln(stdout, "shared: "+p)
		}
		public = append(public, inStore...)
	}
	if len(problems)+len(public) > 0 {
		fmt.Fprintf(stderr, "archivectl verify: %d problems in the sealed repository and %d on the public side of %s (listed above)\n", len(problems), len(public), cfg.Data)
		return 1
	}
	n, err := countCaptures(cfg.Data)
	if err != nil {
		fmt.Fprintf(stderr, "archivectl verify: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "sealed repository ok: %d captures (%d sealed, %d tombstoned, %d released)\n",
		n.Sealed+n.Tombstoned+n.Released, n.Sealed, n.Tombstoned, n.Released)
	return 0
}

// countCaptures reads the index's state counts.
func countCaptures(data string) (store.Counts, error) {
	ix, err := store.OpenIndex(layout.Index(data), lockfile.DefaultTimeout)
	if err != nil {
		return store.Counts{}, err
	}
	return ix.Counts(time.Now())
}
