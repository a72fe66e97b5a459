package lookup

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/public"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// rssBound is what the whole test process may reach while slow readers hold heavy answers.
const rssBound = 256 << 20

// TestMemoryUnderSlowReaders serves a public side through a real http.Server on loopback and
// opens many clients at once that send a request for a heavy answer, read a few bytes, then
// stall: a 7.8 MB record that compresses to a few KB (format=warc, held until verified), and a
// prefix page of 1000 captures with large header fields. The process's RSS (VmRSS) must stay
// within rssBound throughout; what does not fit in the held-bytes budget answers 503 with
// Retry-After and is counted; once the clients are gone the live heap is back near where it
// began, the process gives its memory back (VmRSS under half the bound within 10s) and a whole
// answer is served again. ARCHIVECTL_MEM=1 stalls the clients for longer than
// the default write stall (15s), so that the server's own deadlines must let go.
func TestMemoryUnderSlowReaders(t *testing.T) {
	if _, err := os.ReadFile("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status to read VmRSS from")
	}
	stall, writeStall := 3*time.Second, time.Second
	if os.Getenv("ARCHIVECTL_MEM") == "1" {
		stall, writeStall = 25*time.Second, 0 // the default
	}
	f := newFixture(t)
	body := strings.Repeat("<p>the same paragraph, over and over, compresses well.</p>\n", 7_800_000/60)
	f.release(public.CDXJ{
		URL: "https://big.example/page", Mime: "text/html", Status: 200, Digest: sha256sum(body), ID: "<urn:uuid:big>",
		Time: "2026-08-01T10:00:00Z", ReleaseAt: "2026-08-08T10:00:00Z",
	}, "text/html", body)
	big := strings.Repeat("x", 16<<10)
	for i := range 1000 {
		f.tombstone(public.CDXJ{
			URL: fmt.Sprintf("https://wide.example/p%04d", i), Status: 200, Digest: "sha256:dd", ID: fmt.Sprintf("<urn:uuid:w%d>", i),
			Time: "2026-11-20T00:00:00Z", ReleaseAt: "2026-12-20T00:00:00Z", Headers: [][2]string{{"X-Big", big}},
		})
	}
	f.commit()
	body = ""
	reg := prometheus.NewRegistry()
	s, err := Open(f.dir, Options{Now: func() time.Time { return testNow }, Logger: discard, Registerer: reg, WriteStall: writeStall})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 5 * time.Minute, IdleTimeout: time.Minute} // as cmd/archivectl/serve.go
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	addr := ln.Addr().String()

	tests := []struct {
		name, route, target string
		clients             int
	}{
		{"7.8 MB record", "record", "/api/v1/record?url=https://big.example/page&format=warc", 300},
		{"prefix page of 1000 captures", "captures", "/api/v1/captures?url=https://wide.example/&matchType=prefix&limit=1000", 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { // not parallel: RSS is the process's
			runtime.GC()
			before := liveHeap()
			var peak atomic.Int64
			done := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				tick := time.NewTicker(50 * time.Millisecond)
				defer tick.Stop()
				for {
					peak.Store(max(peak.Load(), vmRSS(t)))
					select {
					case <-done:
						return
					case <-tick.C:
					}
				}
			}()
			start := time.Now()
			var codes sync.Map // status code → *atomic.Int64
			var wg sync.WaitGroup
			for range tc.clients {
				wg.Go(func() {
					code := slowRead(addr, tc.target, stall)
					v, _ := codes.LoadOrStore(code, new(atomic.Int64))
					v.(*atomic.Int64).Add(1)
				})
			}
			wg.Wait()
			close(done)
			<-sampled
			got := map[string]int64{}
			codes.Range(func(k, v any) bool { got[k.(string)] = v.(*atomic.Int64).Load(); return true })
			// The handlers may still be writing into their deadline: wait until the budget is free.
			for i := 0; s.held.held() > 0 && i < 400; i++ {
				time.Sleep(50 * time.Millisecond)
			}
			runtime.GC()
			after := liveHeap()
			// The runtime's scavenger returns free pages in the background, from chunks that a
			// collection has found sparse; an idle server collects at least every 2 minutes
			// (the runtime's forced collection), the test collects once a second instead.
			waited := time.Now()
			for i := 0; vmRSS(t) > rssBound/2 && i < 100; i++ {
				if i%10 == 9 {
					runtime.GC()
				}
				time.Sleep(100 * time.Millisecond)
			}
			returned := vmRSS(t)
			t.Logf("VmRSS %.1f MiB %v after the clients left (%s)", mib(returned), time.Since(waited).Round(100*time.Millisecond), memClasses())
			if returned > rssBound/2 {
				t.Errorf("VmRSS still %.1f MiB 10s after the clients left: memory not returned", mib(returned))
			}
			t.Logf("%d clients stalled %v: answers %v; peak VmRSS %.1f MiB; live heap %.1f MiB before, %.1f MiB after; VmRSS now %.1f MiB; took %v",
				tc.clients, stall, got, mib(peak.Load()), mib(before), mib(after), mib(vmRSS(t)), time.Since(start).Round(time.Millisecond))
			if p := peak.Load(); p > rssBound {
				t.Errorf("peak VmRSS %.1f MiB, above the %d MiB bound", mib(p), rssBound>>20)
			}
			if n := got["200"] + got["503"]; n != int64(tc.clients) {
				t.Errorf("answers %v: want only 200 and 503 from %d clients", got, tc.clients)
			}
			var m dto.Metric
			if err := s.rejected.WithLabelValues(tc.route).Write(&m); err != nil {
				t.Fatal(err)
			}
			if r := m.GetCounter().GetValue(); int64(r) != got["503"] {
				t.Errorf("archivectl_lookup_heavy_rejected_total{route=%q} = %v, want %d (the 503s)", tc.route, r, got["503"])
			}
			if h := s.held.held(); h != 0 {
				t.Errorf("%d bytes of the budget still held after the clients left", h)
			}
			if after > before+16<<20 {
				t.Errorf("live heap %.1f MiB after the clients left, %.1f MiB before", mib(after), mib(before))
			}
			resp, err := http.Get("http://" + addr + tc.target) // the service answers whole again
			if err != nil {
				t.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || n < 7_000_000 {
				t.Errorf("after the attack: %d with %d bytes, want 200 and the whole answer", resp.StatusCode, n)
			}
		})
	}
}

// slowRead sends one GET for target, reads the status line and a few bytes more, then stalls
// for stall before it hangs up; it returns the status code ("" when none came), and checks that
// a 503 carries Retry-After.
func slowRead(addr, target string, stall time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), stall+30*time.Second)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(stall + 30*time.Second))
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetReadBuffer(4 << 10) // a small window: the server's writes block soon
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, addr)
	br := bufio.NewReaderSize(c, 64)
	line, err := br.ReadString('\n')
	if err != nil {
		return "read: " + err.Error()
	}
	code := strings.Fields(line + " x x")[1]
	if code == "503" {
		resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader(line), br)), nil)
		if err != nil || resp.Header.Get("Retry-After") == "" {
			return "503 without Retry-After"
		}
		return code
	}
	time.Sleep(stall)
	return code
}

// vmRSS is the process's resident set, from /proc/self/status.
func vmRSS(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Error(err)
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Error(err)
			}
			return kb << 10
		}
	}
	return 0
}

// liveHeap is the heap the last collection found live.
func liveHeap() int64 {
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// memClasses says where the process's memory is: resident anonymous and file pages, and the
// runtime's heap (in use, free, returned to the OS) and stacks.
func memClasses() string {
	b, _ := os.ReadFile("/proc/self/status")
	var out []string
	for line := range strings.Lines(string(b)) {
		for _, k := range []string{"RssAnon:", "RssFile:"} {
			if strings.HasPrefix(line, k) {
				out = append(out, strings.Join(strings.Fields(line), " "))
			}
		}
	}
	s := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}, {Name: "/memory/classes/total:bytes"}}
	rtmetrics.Read(s)
	for _, m := range s {
		out = append(out, fmt.Sprintf("%s %.1f MiB", strings.TrimPrefix(strings.TrimSuffix(m.Name, ":bytes"), "/memory/classes/"), mib(int64(m.Value.Uint64()))))
	}
	return strings.Join(out, ", ")
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
