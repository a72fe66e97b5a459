package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/archivectl/archivectl/crawler/crawlertest"
)

// TestPartitionedCrawl crawls twelve origins with three nodes given the same seeds, each page
// linking to a page of its own origin and to the next origin's, and embedding the next
// origin's image. From the origins' own logs (each node has its own User-Agent): every origin
// was requested by exactly one node, the one its hash names, and every page was fetched; an
// image was fetched exactly when the page embedding it is on an origin of the same node (a
// requisite on another node's origin is left alone, as every URL there is); what a node found
// on other nodes' origins it counted.
func TestPartitionedCrawl(t *testing.T) {
	t.Parallel()
	const n, nodes = 12, 3
	origins := make([]*crawlertest.Server, n)
	handlers := make([]http.Handler, n) // set once every URL is known
	urls := make([]string, n)
	for i := range origins {
		origins[i] = newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handlers[i].ServeHTTP(w, r) }))
		urls[i] = origins[i].URL
	}
	for i := range origins {
		next := urls[(i+1)%n]
		handlers[i] = pages(map[string]string{
			"/robots.txt": "User-agent: *\nAllow: /\n",
			"/":           fmt.Sprintf(`<a href="/own">own</a><a href="%[1]s/">next</a><img src="%[1]s/img.png">`, next),
			"/own":        "own page",
			"/img.png":    "image",
		})
	}
	seeds := seedURLs(t, urls...)
	owners := map[int]int{}
	for _, u := range seeds {
		owners[OriginPartition(u, nodes)]++
	}
	sums := make([]Summary, nodes)
	for k := range nodes {
		arch := &fakeArchive{}
		sum, _, err := crawlInto(context.Background(), t, Config{
			Seeds: seeds, Delay: 0, UserAgent: fmt.Sprintf("node-%d", k), Partition: Partition{K: k, N: nodes},
		}, arch)
		if owners[k] == 0 { // the ports are random: a partition may own none of them
			if !errors.Is(err, ErrNoSeedInPartition) {
				t.Fatalf("node %d, owning no seed: %v, want ErrNoSeedInPartition", k, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("node %d: %v", k, err)
		}
		sums[k] = sum
	}
	for i, o := range origins {
		u, _ := url.Parse(urls[i])
		want := fmt.Sprintf("node-%d", OriginPartition(u, nodes))
		got := map[string]bool{}
		for _, h := range o.Log() {
			if h.UserAgent != want {
				t.Errorf("origin %d (%s's) was requested by %q: %s", i, want, h.UserAgent, h.Path)
			}
			got[h.Path] = true
		}
		for _, p := range []string{"/robots.txt", "/", "/own"} {
			if !got[p] {
				t.Errorf("origin %d: %s never requested", i, p)
			}
		}
		prev, _ := url.Parse(urls[(i+n-1)%n])
		if same := OriginPartition(prev, nodes) == OriginPartition(u, nodes); got["/img.png"] != same {
			t.Errorf("origin %d: image fetched %v, want %v (embedded by a page of the same node: %v)", i, got["/img.png"], same, same)
		}
	}
	for k, s := range sums {
		// Each page embeds the next origin's image (the link to the next origin is out of the
		// scope, never a candidate): it is another node's unless this node owns that origin too.
		want := 0
		for i := range n {
			if OriginPartition(seeds[i], nodes) == k && OriginPartition(seeds[(i+1)%n], nodes) != k {
				want++
			}
		}
		if s.OtherPartition != want {
			t.Errorf("node %d counted %d URLs of other partitions, want %d", k, s.OtherPartition, want)
		}
	}
}

func TestPartitionWithoutSeeds(t *testing.T) {
	t.Parallel()
	seeds := seedURLs(t, "http://127.0.0.1:1/")
	k := 1 - OriginPartition(seeds[0], 2) // the partition that does not own the only seed
	_, err := Open(Config{DataDir: t.TempDir(), Seeds: seeds, Partition: Partition{K: k, N: 2}})
	if !errors.Is(err, ErrNoSeedInPartition) {
		t.Fatalf("Open = %v, want ErrNoSeedInPartition", err)
	}
}
