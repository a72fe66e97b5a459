package main

import (
	"context"
	"fmt"

	"github.com/archivectl/archivectl/crawler"
)

// handOff is the hand-off of a partitioned crawl that shares a store (public:): the URLs this
// node meets on other partitions' origins go to their nodes through handoff.store (by default
// the public: store), and theirs come to it (the node's name was checked with the configuration). nil without a partition or a
// shared store: those URLs are only counted.
func handOff(ctx context.Context, cfg Config, p crawler.Partition) (*crawler.HandOff, error) {
	if p.N <= 1 || cfg.Public == "" {
		return nil, nil
	}
	where := cfg.HandOff.Store
	if where == "" {
		where = cfg.Public
	}
	s, err := openStore(ctx, where)
	if err != nil {
		return nil, fmt.Errorf("hand-off to the other partitions' nodes: %w", err)
	}
	return &crawler.HandOff{Store: s, Node: nodeName(cfg), Interval: cfg.HandOff.Interval, Linger: cfg.HandOff.Linger}, nil
}
