package cdxscale

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// loadResult is what a paced load measured.
type loadResult struct {
	rate          int
	took          time.Duration
	sent, failed  int
	firstFailure  string
	p50, p99, max time.Duration
	byKind        map[string]time.Duration // p99 of each kind of probe
}

func (l loadResult) String() string {
	var kinds []string
	for k, d := range l.byKind {
		kinds = append(kinds, k+" "+ms(d))
	}
	slices.Sort(kinds)
	return fmt.Sprintf("%d req/s paced: %d requests in %s (%.0f req/s), %d failed; latency from the scheduled send time: p50 %s, p99 %s, max %s; p99 by kind: %s",
		l.rate, l.sent, l.took.Round(time.Millisecond), float64(l.sent)/l.took.Seconds(), l.failed,
		ms(l.p50), ms(l.p99), ms(l.max), strings.Join(kinds, ", "))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

// paced sends the probes (in turn, as many times as it takes) at rate requests a second for d:
// an open loop on a fixed schedule, request i due at start + i/rate. Each latency is counted from
// the request's due time, not from when a connection was free to send it, so a stall shows as
// latency instead of hiding as fewer requests (no coordinated omission). An answer whose status
// is not want's for the probe is a failure.
func paced(client *http.Client, base string, probes []probe, want func(probe) int, rate int, d time.Duration, conns int) loadResult {
	total := int(float64(rate) * d.Seconds())
	lat := make([]time.Duration, total)
	var failed atomic.Int64
	var firstFailure sync.Once
	res := loadResult{rate: rate, sent: total}
	start := time.Now().Add(20 * time.Millisecond)
	due := func(i int) time.Time { return start.Add(time.Duration(int64(i) * int64(time.Second) / int64(rate))) }
	work := make(chan int, total)
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for i := range work {
				p := probes[i%len(probes)]
				err := send(client, base, p, want(p))
				lat[i] = time.Since(due(i))
				if err != nil {
					failed.Add(1)
					firstFailure.Do(func() { res.firstFailure = fmt.Sprintf("%s: %v", p, err) })
				}
			}
		})
	}
	// The dispatcher hands each request out at its due time; when every connection is busy the
	// requests wait in the channel, and their latencies, counted from their due times, grow.
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
	res.took = time.Since(start)
	res.failed = int(failed.Load())
	kinds := map[string][]time.Duration{}
	for i, d := range lat {
		p := probes[i%len(probes)]
		k := p.kind
		if p.kind == "cdx" {
			k = "cdx " + p.cdx.kind()
		}
		kinds[k] = append(kinds[k], d)
	}
	res.byKind = map[string]time.Duration{}
	for k, ds := range kinds {
		res.byKind[k] = percentile(ds, 0.99)
	}
	res.p50, res.p99, res.max = percentile(lat, 0.50), percentile(lat, 0.99), percentile(lat, 1)
	return res
}

// percentile is the p-quantile of ds, which it sorts.
func percentile(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(p*float64(len(ds))))]
}

// send makes one request and reads its answer whole.
func send(client *http.Client, base string, p probe, want int) error {
	resp, _, err := p.do(client, base, io.Discard)
	if err == nil && resp.StatusCode != want {
		return fmt.Errorf("status %d, want %d", resp.StatusCode, want)
	}
	return err
}

// newClient is an HTTP client of up to conns kept-alive connections that follows no redirect
// (a TimeGate's 302 is the answer).
func newClient(conns int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns,
			DisableCompression: true, IdleConnTimeout: time.Minute},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       30 * time.Second,
	}
}
