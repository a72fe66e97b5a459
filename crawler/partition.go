package crawler

import (
	"fmt"
	"hash/fnv"
	"net/url"
	"strconv"
	"strings"

	"github.com/archivectl/archivectl/crawler/extract"
	"github.com/archivectl/archivectl/internal/invalid"
)

// Partition is one share of a crawl split across N nodes by origin: the origins whose stable
// hash falls in partition K, 0 ≤ K < N. Every node can be given the same seeds; each crawls
// its own origins, so politeness (one connection per origin, its delays) stays on one node.
// The zero Partition is the whole crawl.
type Partition struct {
	K, N int
}

// ParsePartition reads "K/N" (decimal, 0 ≤ K < N).
func ParsePartition(s string) (Partition, error) {
	ks, ns, ok := strings.Cut(s, "/")
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	switch {
	case !ok || kerr != nil || nerr != nil || strings.ContainsAny(s, "+ \t") || ks == "" || ns == "":
		return Partition{}, &invalid.Value{What: "partition", Value: s, Reason: "not K/N: give two whole numbers, e.g. 0/3"}
	case n <= 0:
		return Partition{}, &invalid.Value{What: "partition", Value: s, Reason: "N must be at least 1"}
	case k < 0 || k >= n:
		return Partition{}, &invalid.Value{What: "partition", Value: s, Reason: fmt.Sprintf("K must be from 0 to %d (partitions are numbered from 0)", n-1)}
	}
	return Partition{K: k, N: n}, nil
}

// String is "K/N", or "all" for the zero Partition.
func (p Partition) String() string {
	if p.N == 0 {
		return "all"
	}
	return strconv.Itoa(p.K) + "/" + strconv.Itoa(p.N)
}

// Owns reports whether u's origin falls in the partition; the zero Partition owns every origin.
func (p Partition) Owns(u *url.URL) bool {
	if p.N <= 1 {
		return true
	}
	return OriginPartition(u, p.N) == p.K
}

// Filter returns the seeds whose origins p owns, in their order.
func (p Partition) Filter(seeds []*url.URL) []*url.URL {
	var out []*url.URL
	for _, s := range seeds {
		if p.Owns(s) {
			out = append(out, s)
		}
	}
	return out
}

// OriginPartition is the partition, of n, that u's origin falls in. The key is the origin as
// "scheme://host:port" (scheme in lower case, the host as extract.ASCIIHost writes it, the port always
// written, 80 or 443 when the URL has none); it is hashed with 64-bit FNV-1a and mapped to a partition by jump
// consistent hashing (Lamping and Veach, 2014), so that going from n to n+1 nodes moves only
// about 1/(n+1) of the origins. This mapping is part of the crawl's contract: changing it
// would move origins between nodes that already hold their captures.
func OriginPartition(u *url.URL, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(originKey(u)))
	return jump(h.Sum64(), n)
}

// originKey is the hashed form of u's origin: scheme://host:port, port always present.
func originKey(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, _ := extract.ASCIIHost(u.Hostname()) // both spellings of an IDN host are one origin (docs/rules.md#d24)
	host = strings.TrimSuffix(host, ".")
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	} else if n, err := strconv.Atoi(port); err == nil {
		port = strconv.Itoa(n) // "080" and "80" are one port
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host + ":" + port
}

// jump is Lamping and Veach's jump consistent hash of key into n buckets.
func jump(key uint64, n int) int {
	b, j := int64(-1), int64(0)
	for j < int64(n) {
		b = j
		key = key*2862933555777941757 + 1
		j = int64(float64(b+1) * (float64(int64(1)<<31) / float64((key>>33)+1)))
	}
	return int(b)
}

// owned keeps the claimed items whose origins are in the crawl's partition. The others (links,
// requisites, redirects and sitemaps on origins of other partitions) are left to the nodes
// that own them, so that no two nodes ever send requests to one origin; they are counted,
// once each since they were claimed first, and with a HandOff handed to those nodes.
func (c *Crawl) owned(items []item) []item {
	p := c.cfg.Partition
	if p.N <= 1 {
		return items
	}
	kept, foreign := items[:0:0], []item(nil)
	for _, it := range items {
		u, err := url.Parse(it.URL)
		if err == nil && p.Owns(u) {
			kept = append(kept, it)
			continue
		}
		c.log.Debug("not fetched: its origin is another partition's", "url", it.URL, "partition", p.String())
		c.stats.add(func(s *Summary) { s.OtherPartition++ })
		if err == nil {
			foreign = append(foreign, it)
		}
	}
	c.handOff(foreign)
	return kept
}
