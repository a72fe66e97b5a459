package crawler

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
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
		o := newOrigin(&testing.T{}, pages(site))
		defer o.Close()
		u, _ := url.Parse(o.URL + "/")
		seeds = append(seeds, u)
	}
	_ = http.StatusOK
	b.ResetTimer()
	for b.Loop() {
		sum, err := Run(context.Background(), Config{DataDir: b.TempDir(), Seeds: seeds})
		if err != nil {
			b.Fatal(err)
		}
		if sum.Pages != 1010 {
			b.Fatalf("%d pages", sum.Pages)
		}
		b.ReportMetric(sum.PagesPerSecond(), "pages/s")
	}
}
