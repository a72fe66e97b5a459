package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/internal/testkit"
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

// BenchmarkSealer pushes the captures of 20 origins × 200 pages of 4 KB, each with its page's
// links and a settled disallowed link, through the sealer into a real store and frontier, as
// fast as the sealer takes them: its throughput with no fetching in the way.
func BenchmarkSealer(b *testing.B) {
	body := strings.Repeat("lorem ipsum dolor sit amet ", 150)
	type page struct {
		c     store.Capture
		it    item
		found []item
	}
	var pages []page
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for o := range 20 {
		for p := range 200 {
			u := fmt.Sprintf("http://127.0.0.1:%d/p/%d", 40000+o, p)
			html := fmt.Sprintf("<html><body><a href=\"/p/%d\">n</a>%s</body></html>", p, body)
			pg := page{it: item{URL: u, Depth: p / 5}, c: store.Capture{URL: u, Time: now, IP: "127.0.0.1",
				Request:  fmt.Appendf(nil, "GET /p/%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: archivectl\r\n\r\n", p, 40000+o),
				Response: fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(html), html)}}
			for l := 1; l <= 5; l++ {
				pg.found = append(pg.found, item{URL: fmt.Sprintf("http://127.0.0.1:%d/p/%d", 40000+o, p*5+l), Depth: p/5 + 1})
			}
			pg.found = append(pg.found, item{URL: fmt.Sprintf("http://127.0.0.1:%d/private/%d", 40000+o, p), Depth: p/5 + 1})
			pages = append(pages, pg)
		}
	}
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		st, err := store.Open(dir, store.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		fr, _, err := openFrontier(filepath.Join(dir, "frontier.db"), []string{"http://127.0.0.1:40000/"}, time.Second)
		if err != nil {
			b.Fatal(err)
		}
		s := newSealer(StoreArchive(st), fr, slog.New(slog.DiscardHandler))
		go s.run()
		b.StartTimer()
		start, cpu := time.Now(), testkit.SelfCPU()
		var wg sync.WaitGroup
		for o := range 20 { // one submitter an origin, as the crawl's workers
			wg.Go(func() {
				for _, pg := range pages[o*200 : (o+1)*200] {
					var sealed sync.WaitGroup
					sealed.Add(1)
					s.submit(&sealJob{caps: []store.Capture{pg.c}, mark: &urlChange{Item: pg.it, State: done, At: now, Found: pg.found},
						done: func([]store.Entry, error) { sealed.Done() }})
					private := pg.found[len(pg.found)-1]
					s.submit(&sealJob{mark: &urlChange{Item: private, State: skipped}, done: func([]store.Entry, error) {}})
					_ = &sealed // a worker does not wait for its page's seal
				}
			})
		}
		wg.Wait()
		s.close()
		b.ReportMetric(float64(len(pages))/time.Since(start).Seconds(), "captures/s")
		b.ReportMetric(float64(testkit.SelfCPU()-cpu)/1e6/float64(len(pages)), "CPU-ms/capture")
		b.StopTimer()
		fr.close()
		st.Close()
		b.StartTimer()
	}
}
