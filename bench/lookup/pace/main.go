// Command pace asks the lookup for random URLs at a fixed rate (an open-loop load, like
// wrk2 or vegeta) and prints the latency percentiles. Each request has an intended send time
// (start + i/rate); its latency is counted from that time, not from when a connection was
// free to send it, so a stall shows in the percentiles instead of hiding as fewer requests
// (no coordinated omission).
//
//	go run ./bench/lookup/pace -addr 127.0.0.1:18080 -urls urls.txt -rate 15000 -d 30s
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18080", "lookup address")
	urlsFile := flag.String("urls", "urls.txt", "URLs to ask for, one a line")
	rate := flag.Int("rate", 15000, "requests per second")
	dur := flag.Duration("d", 30*time.Second, "how long")
	conns := flag.Int("c", 64, "connections (concurrent requests at most)")
	flag.Parse()
	urls, err := readLines(*urlsFile)
	if err != nil || len(urls) == 0 {
		fmt.Fprintf(os.Stderr, "pace: %v (%d URLs)\n", err, len(urls))
		os.Exit(1)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: *conns, MaxConnsPerHost: *conns, DisableCompression: true}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	total := int(float64(*rate) * dur.Seconds())
	lat := make([]time.Duration, total)
	var errs, sent atomic.Int64
	start := time.Now().Add(50 * time.Millisecond)
	due := func(i int) time.Time { return start.Add(time.Duration(int64(i) * int64(time.Second) / int64(*rate))) }
	work := make(chan int, total)
	var wg sync.WaitGroup
	for w := range *conns {
		rng := rand.New(rand.NewPCG(uint64(w), 7))
		wg.Go(func() {
			for i := range work {
				target := "http://" + *addr + "/api/v1/captures?url=" + url.QueryEscape(urls[rng.IntN(len(urls))])
				resp, err := client.Get(target)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					errs.Add(1)
				}
				lat[i] = time.Since(due(i))
				sent.Add(1)
			}
		})
	}
	// The dispatcher hands out each request at its intended time; when every connection is
	// busy it falls behind, and the requests' latencies, counted from their intended times, grow.
	for i := 0; i < total; {
		now := time.Now()
		for i < total && !due(i).After(now) {
			work <- i
			i++
		}
		if i < total {
			time.Sleep(min(due(i).Sub(now), 200*time.Microsecond))
		}
	}
	close(work)
	wg.Wait()
	took := time.Since(start)
	slices.Sort(lat)
	pct := func(p float64) string {
		return fmt.Sprintf("%.2fms", float64(lat[min(len(lat)-1, int(p*float64(len(lat))))])/1e6)
	}
	fmt.Printf("paced %d req/s for %s: %d requests in %s (%.0f req/s achieved), %d errors; latency from the intended send time: p50 %s p90 %s p99 %s p99.9 %s max %s\n",
		*rate, *dur, sent.Load(), took.Round(time.Millisecond), float64(sent.Load())/took.Seconds(), errs.Load(),
		pct(0.50), pct(0.90), pct(0.99), pct(0.999), pct(1))
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}
