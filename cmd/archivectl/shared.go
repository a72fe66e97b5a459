package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/objectstore/s3store"
)

// sharedFlags registers --public and --node, the shared store of a node's public side.
func sharedFlags(fs *flagSet, c *Config) {
	fs.stringKey(&c.Public, "public", "public", "share the public side in s3://BUCKET/PREFIX or file:///DIR (credentials, region and endpoint from the AWS environment); empty: DATA/public alone")
	fs.stringKey(&c.Node, "node", "node", "this node's name in the shared store (default: the host name)")
}

// sharedStore opens and checks the store cfg.Public names: nil for the default (DATA/public
// alone). Any failure is one line: a bucket that is missing, credentials refused, an endpoint
// out of reach.
func sharedStore(ctx context.Context, cfg Config) (objectstore.Store, error) {
	return openStore(ctx, cfg.Public)
}

// openStore opens and checks the store that location (a public: value) names: nil for "".
func openStore(ctx context.Context, location string) (objectstore.Store, error) {
	return openStoreWith(ctx, location, s3store.Options{})
}

// openStoreWith is openStore with the options of an S3 store.
func openStoreWith(ctx context.Context, location string, opt s3store.Options) (objectstore.Store, error) {
	loc, err := objectstore.ParseLocation(location)
	if err != nil {
		return nil, err
	}
	var s objectstore.Store
	switch loc.Kind {
	case objectstore.Local:
		return nil, nil
	case objectstore.File:
		s = objectstore.NewDir(loc.Dir)
	case objectstore.S3:
		if s, err = s3store.Open(ctx, loc, opt); err != nil {
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
func publisher(cfg Config, s objectstore.Store, log *slog.Logger, committed func(publish.Result)) func(context.Context) error {
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
func describe(s objectstore.Store) string { return fmt.Sprint(s) }
