package main

import (
	"context"
	"fmt"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/objectstore/publish"
)

// handOff is the hand-off of a partitioned crawl that shares a store (public:): the URLs this
// node meets on other partitions' origins go to their nodes through the store, and theirs come
// to it. nil without a partition or a shared store: those URLs are only counted.
func handOff(ctx context.Context, cfg Config, p crawler.Partition) (*crawler.HandOff, error) {
	if p.N <= 1 || cfg.Public == "" {
		return nil, nil
	}
	node := nodeName(cfg)
	if err := publish.ValidNode(node); err != nil {
		return nil, fmt.Errorf("--node: %w", err)
	}
	s, err := sharedStore(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("hand-off to the other partitions' nodes: %w", err)
	}
	return &crawler.HandOff{Store: s, Node: node, Interval: cfg.HandOff.Interval, Linger: cfg.HandOff.Linger}, nil
}
