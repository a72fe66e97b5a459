// Command pace asks the lookup for random URLs at a fixed rate (an open-loop load, like
// wrk2 or vegeta) and prints the latency percentiles. Each request has an intended send time
// (start + i/rate); its latency is counted from that time, not from when a connection was
// free to send it, so a stall shows in the percentiles instead of hiding as fewer requests
// (no coordinated omission). It speaks HTTP/1.1 over kept-alive connections itself, with no
// HTTP library, so that on a small machine the load it puts on the CPUs is little more than
// wrk's.
//
//	go run ./bench/lookup/pace -addr 127.0.0.1:18080 -urls urls.txt -rate 15000 -d 30s
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
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
			var c *conn
			for i := range work {
				if c == nil {
					var err error
					if c, err = dial(*addr); err != nil {
						errs.Add(1)
						lat[i] = time.Since(due(i))
						sent.Add(1)
						continue
					}
				}
				if status, err := c.get("/api/v1/captures?url=" + url.QueryEscape(urls[rng.IntN(len(urls))])); err != nil || status != 200 {
					errs.Add(1)
					if err != nil {
						c.Close()
						c = nil
					}
				}
				lat[i] = time.Since(due(i))
				sent.Add(1)
			}
			if c != nil {
				c.Close()
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

// conn is one kept-alive HTTP/1.1 connection.
type conn struct {
	net.Conn
	br  *bufio.Reader
	buf []byte
}

func dial(addr string) (*conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, br: bufio.NewReaderSize(c, 64<<10)}, nil
}

// get sends one GET and reads the answer (which must have a Content-Length), returning its status.
func (c *conn) get(target string) (int, error) {
	c.buf = append(append(append(c.buf[:0], "GET "...), target...), " HTTP/1.1\r\nHost: lookup\r\n\r\n"...)
	if _, err := c.Write(c.buf); err != nil {
		return 0, err
	}
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, err
	}
	length := -1
	for {
		h, err := c.br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(h) <= 2 {
			break
		}
		if k, v, ok := bytes.Cut(h, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
				return 0, err
			}
		}
	}
	if length < 0 {
		return 0, errors.New("an answer without Content-Length")
	}
	_, err = c.br.Discard(length)
	return status, err
}
