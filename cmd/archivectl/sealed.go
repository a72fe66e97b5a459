package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/archivectl/archivectl/crawler/offsite"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/s3store"
)

// sealedStore opens and checks the store sealed: names, with the credentials of
// sealed_store: nil when the sealed side stays on this disk alone.
func sealedStore(ctx context.Context, cfg Config) (objectstore.Store, error) {
	s, err := openStoreWith(ctx, cfg.Sealed, s3store.Options{Profile: cfg.SealedStore.Profile, Endpoint: cfg.SealedStore.Endpoint})
	if err != nil {
		return nil, fmt.Errorf("the sealed store: %w", err)
	}
	return s, nil
}

// offsiteCrawl is the crawl's uploader to the sealed store: nil without one. With restore, the
// empty data directory is first rebuilt from the store's last checkpoint.
func offsiteCrawl(ctx context.Context, cfg Config, restore bool, log *slog.Logger) (*offsite.Uploader, error) {
	if restore && cfg.Sealed == "" {
		return nil, errors.New("--restore rebuilds the data directory from the sealed store: give --sealed (or sealed: in the config)")
	}
	if !restore && offsite.Restoring(cfg.Data) {
		// Its frontier may have URLs done whose captures are in an index.db not yet restored.
		return nil, fmt.Errorf("%s: %w", cfg.Data, offsite.ErrRestoring)
	}
	s, err := sealedStore(ctx, cfg)
	if err != nil || s == nil {
		return nil, err
	}
	if !restore && !offsite.HoldsCrawl(cfg.Data) {
		// A fresh directory crawling into a store that holds a node's checkpoints would bury them
		// under its own: the next restore would take the new crawl's and leave theirs.
		last, err := offsite.LastCheckpoint(ctx, s)
		if err != nil {
			return nil, err
		}
		if last != "" {
			return nil, fmt.Errorf("the sealed store %s holds checkpoints of a crawl (the last %s) and %s holds none: give --restore to rebuild the node from it, or give this crawl a sealed store (prefix) of its own", s, last, cfg.Data)
		}
	}
	if restore {
		r, err := offsite.Restore(ctx, s, cfg.Data)
		if err != nil {
			return nil, fmt.Errorf("restore %s from %s: %w", cfg.Data, s, err)
		}
		log.Info("restored from the sealed store", "store", s.String(), "checkpoint", r.Manifest.Seq, "taken", r.Manifest.Time,
			"sealed_files", len(r.Manifest.Sealed), "later_files", r.Later)
		if r.Later > 0 {
			log.Warn("sealed files uploaded after the checkpoint are not restored: the frontier of the checkpoint fetches their URLs again", "files", r.Later)
		}
	}
	return &offsite.Uploader{Store: s, DataDir: cfg.Data, Interval: cfg.SealedStore.Checkpoint, Log: log}, nil
}

// sealedProblems checks the keys of the sealed side: a store of its own, reached with its own
// credentials, holding files one PUT can carry.
func sealedProblems(c *Config, bad func(key string, value any, reason string)) {
	loc, err := objectstore.ParseLocation(c.Sealed)
	if err != nil {
		bad("sealed", c.Sealed, reasonOf(err))
		return
	}
	for _, kv := range [][2]string{{"public", c.Public}, {"handoff.store", c.HandOff.Store}} {
		key, other := kv[0], kv[1]
		if o, err := objectstore.ParseLocation(other); err == nil && loc.Kind != objectstore.Local && o.Kind == loc.Kind && o.Bucket == loc.Bucket && o.Dir == loc.Dir {
			bad("sealed", c.Sealed, "must be a store of its own, not the one of "+key+" (whoever reads that one must not read sealed files)")
		}
	}
	if loc.Kind == objectstore.S3 && c.Store.MaxFileSize > s3store.MaxPut {
		bad("store.max_file_size", c.Store.MaxFileSize, "must be at most 5 GiB (one PUT) with sealed: in S3")
	}
	if e := c.SealedStore.Endpoint; e != "" {
		if u, err := url.Parse(e); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			bad("sealed_store.endpoint", e, "not an http(s) URL")
		}
	}
	if c.SealedStore.Checkpoint <= 0 {
		bad("sealed_store.checkpoint", c.SealedStore.Checkpoint, "must be more than 0s")
	}
}
