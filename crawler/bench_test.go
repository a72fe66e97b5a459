package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"testing"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/store"
)

// BenchmarkCrawl crawls 10 loopback origins of 100 pages each, in process, into a real store.
func BenchmarkCrawl(b *testing.B) {
	site := map[string]string{"/robots.txt": "User-agent: *\nDisallow: /private/\n"}
	for i := range 100 {
		site[fmt.Sprintf("/p/%d", i)] = fmt.Sprintf(`<html><body><a href="/p/%d">a</a><a href="/p/%d">b</a><a href="/private/%d">p</a><p>%0400d</p></body></html>`, (2*i+1)%100, (2*i+2)%100, i, i)
	}
	site["/"] = `<a href="/p/0">start</a>`
	var seeds []*url.URL
	for range 10 {
		o := crawlertest.NewServer(pages(site))
		defer o.Close()
		u, _ := url.Parse(o.URL + "/")
		seeds = append(seeds, u)
	}
	b.ResetTimer()
	for b.Loop() {
		sum, err := crawlStore(b.TempDir(), seeds)
		if err != nil {
			b.Fatal(err)
		}
		if sum.Pages != 1010 {
			b.Fatalf("%d pages", sum.Pages)
		}
		b.ReportMetric(sum.PagesPerSecond(), "pages/s")
	}
}

// crawlStore crawls seeds into a new store in dir.
func crawlStore(dir string, seeds []*url.URL) (Summary, error) {
	c, err := Open(Config{DataDir: dir, Seeds: seeds})
	if err != nil {
		return Summary{}, err
	}
	defer c.Close()
	st, err := store.Open(dir, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return Summary{}, err
	}
	defer st.Close()
	return c.Run(context.Background(), StoreArchive(st))
}
