package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/release/publicstore"
	"github.com/archivectl/archivectl/release/publicstore/s3store"
	"github.com/archivectl/archivectl/release/publish"
)

// sharedFlags registers --public and --node, the shared store of a node's public side.
func sharedFlags(fs *flagSet, c *Config) {
	fs.stringKey(&c.Public, "public", "public", "share the public side in s3://BUCKET/PREFIX or file:///DIR (credentials, region and endpoint from the AWS environment); empty: DATA/public alone")
	fs.stringKey(&c.Node, "node", "node", "this node's name in the shared store (default: the host name)")
}

// sharedStore opens and checks the store cfg.Public names: nil for the default (DATA/public
// alone). Any failure is one line: a bucket that is missing, credentials refused, an endpoint
// out of reach.
func sharedStore(ctx context.Context, cfg Config) (publicstore.Store, error) {
	loc, err := publicstore.ParseLocation(cfg.Public)
	if err != nil {
		return nil, err
	}
	var s publicstore.Store
	switch loc.Kind {
	case publicstore.Local:
		return nil, nil
	case publicstore.File:
		s = publicstore.NewDir(loc.Dir)
	case publicstore.S3:
		if s, err = s3store.Open(ctx, loc, s3store.Options{}); err != nil {
			return nil, err
		}
	}
	check, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.Check(check); err != nil {
		return nil, err
	}
	return s, nil
}

// nodeName is cfg's node name, or the host name's.
func nodeName(cfg Config) string {
	if cfg.Node != "" {
		return cfg.Node
	}
	return publish.DefaultNode()
}

// publisher is the release hook that publishes cfg's data directory to s after each pass.
func publisher(cfg Config, s publicstore.Store, log *slog.Logger, committed func(publish.Result)) func(context.Context) error {
	node := nodeName(cfg)
	return func(ctx context.Context) error {
		res, err := publish.Publish(ctx, cfg.Data, s, publish.Options{Node: node, Logger: log})
		if err != nil {
			return err
		}
		if committed != nil {
			committed(res)
		}
		return nil
	}
}

// mirrorDir is where a lookup serving a shared store keeps its view (the public index alone).
func mirrorDir(cfg Config) string { return filepath.Join(cfg.Data, "mirror") }

// describe names the store for a person.
func describe(s publicstore.Store) string { return fmt.Sprint(s) }
