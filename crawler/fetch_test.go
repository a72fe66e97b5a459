package crawler

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
)

// rawServer answers every request on a loopback listener with the bytes resp returns for its path.
func rawServer(t *testing.T, resp func(path string, c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					resp(req.URL.Path, c)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

func TestFetchRecordsRawExchange(t *testing.T) {
	t.Parallel()
	const raw = "HTTP/1.1 200 OK\r\nX-Zeta: 1\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nX-Alpha: 2\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
	base := rawServer(t, func(path string, c net.Conn) { c.Write([]byte(raw)) })
	f := newFetcher("testbot (+https://example.com/contact)", 5*time.Second, time.Now, nil)
	defer f.close()
	for i := range 2 { // the second exchange reuses the connection and records only itself
		x, err := f.fetch(context.Background(), base+"/x?y=1", 1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(x.Response) != raw {
			t.Fatalf("exchange %d: response\n%q\nwant\n%q", i, x.Response, raw)
		}
		req := string(x.Request)
		for _, want := range []string{"GET /x?y=1 HTTP/1.1\r\n", "User-Agent: testbot (+https://example.com/contact)\r\n"} {
			if !strings.Contains(req, want) {
				t.Fatalf("request %q lacks %q", req, want)
			}
		}
		if strings.Contains(req, "Accept-Encoding") {
			t.Fatalf("request asks for compression: %q", req)
		}
		if string(x.Body) != "hello" || x.Status != 200 || x.IP != "127.0.0.1" || x.Truncated != "" {
			t.Fatalf("body %q status %d ip %q truncated %q", x.Body, x.Status, x.IP, x.Truncated)
		}
	}
}

func TestFetchLimits(t *testing.T) {
	t.Parallel()
	stall := make(chan struct{})
	t.Cleanup(func() { close(stall) })
	mux := crawlertest.HostileMux()
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tests := []struct {
		name      string
		path      string
		truncated string // "" with errKind set: an error
		errKind   string
		body      int // payload bytes kept
	}{
		{"endless body cut at the limit", "/hostile/endless", "length", "", 64 << 10},
		{"stalled body cut by the timeout", "/stall", "time", "", 7},
		{"reset mid-body is an error", "/hostile/reset", "", "reset", 0},
		{"1 MB of headers is an error", "/hostile/headers", "", "headers-too-large", 0},
		{"gzip bomb kept compressed, cut at the limit", "/hostile/bomb", "length", "", 64 << 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			timeout := 5 * time.Second
			if tc.truncated == "time" {
				timeout = 300 * time.Millisecond
			}
			f := newFetcher("testbot", timeout, time.Now, nil)
			defer f.close()
			x, err := f.fetch(context.Background(), srv.URL+tc.path, 64<<10, nil)
			if tc.errKind != "" {
				if err == nil || errKind(err) != tc.errKind {
					t.Fatalf("err = %v (kind %q), want kind %q", err, errKind(err), tc.errKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if x.Truncated != tc.truncated {
				t.Fatalf("truncated %q, want %q", x.Truncated, tc.truncated)
			}
			if tc.body >= 0 && len(x.Body) != tc.body {
				t.Fatalf("kept %d bytes, want %d", len(x.Body), tc.body)
			}
			if max := int64(64<<10) + maxHeaderBytes + 64<<10; int64(len(x.Response)) > max {
				t.Fatalf("recorded %d bytes, more than %d", len(x.Response), max)
			}
			if !bytes.HasPrefix(x.Response, []byte("HTTP/1.1 200 OK\r\n")) {
				t.Fatalf("response starts %q", x.Response[:min(40, len(x.Response))])
			}
		})
	}
}

// stallConn delivers what is written and then holds the writer until release is closed, as a
// descheduled writer goroutine would.
type stallConn struct {
	net.Conn
	release chan struct{}
}

func (s stallConn) Write(p []byte) (int, error) {
	n, err := s.Conn.Write(p)
	<-s.release
	return n, err
}

// TestRecConnRecordsBeforeTheWriteReturns: the server may answer, and the exchange end, while
// the writer has not returned yet; the request must already be recorded.
func TestRecConnRecordsBeforeTheWriteReturns(t *testing.T) {
	t.Parallel()
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	release := make(chan struct{})
	defer close(release)
	rc := &recConn{Conn: stallConn{client, release}}
	rc.start(1 << 20)
	const req, resp = "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 204 No Content\r\n\r\n"
	go rc.Write([]byte(req))
	go func() {
		buf := make([]byte, len(req))
		if _, err := io.ReadFull(server, buf); err == nil {
			server.Write([]byte(resp))
		}
	}()
	got := make([]byte, len(resp))
	if _, err := io.ReadFull(rc, got); err != nil {
		t.Fatal(err)
	}
	w, r := rc.stop()
	if string(w) != req || string(r) != resp {
		t.Fatalf("recorded request %q and response %q", w, r)
	}
}
