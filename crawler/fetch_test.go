package crawler

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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
	rec := rc.start(1 << 20)
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
	w, r := rc.stop(rec)
	if string(w) != req || string(r) != resp {
		t.Fatalf("recorded request %q and response %q", w, r)
	}
}

// TestRecConnOneRecordingPerExchange: the next exchange on a connection starts before the
// previous fetch stops its recording (the transport hands a connection on once a body is read
// to its end); each keeps its own bytes.
func TestRecConnOneRecordingPerExchange(t *testing.T) {
	t.Parallel()
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	go io.Copy(server, server) // an echo: what is written is read back
	rc := &recConn{Conn: client}
	exchange := func(s string) {
		if _, err := rc.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(rc, make([]byte, len(s))); err != nil {
			t.Fatal(err)
		}
	}
	a := rc.start(1 << 20)
	exchange("first")
	b := rc.start(1 << 20) // before a stops
	exchange("second")
	aw, ar := rc.stop(a)
	bw, br := rc.stop(b)
	if string(aw) != "first" || string(ar) != "first" || string(bw) != "second" || string(br) != "second" {
		t.Fatalf("recorded %q/%q and %q/%q, want each exchange its own bytes", aw, ar, bw, br)
	}
}

// TestRecordedFor: a recorded request that is not the request made fails the fetch.
func TestRecordedFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, raw string
		ok             bool
	}{
		{"its own", "http://a.example/p/1?q", "GET /p/1?q HTTP/1.1\r\nHost: a.example\r\nUser-Agent: x\r\n\r\n", true},
		{"host in any case", "http://a.example:8080/", "GET / HTTP/1.1\r\nhost: A.example:8080\r\n\r\n", true},
		{"IDN host as punycode", "http://bücher.example/", "GET / HTTP/1.1\r\nHost: xn--bcher-kva.example\r\n\r\n", true},
		{"another path", "http://a.example/p/1", "GET /p/2 HTTP/1.1\r\nHost: a.example\r\n\r\n", false},
		{"another host", "http://a.example/", "GET / HTTP/1.1\r\nHost: b.example\r\n\r\n", false},
		{"nothing recorded", "http://a.example/", "", false},
		{"no Host", "http://a.example/", "GET / HTTP/1.1\r\n\r\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(http.MethodGet, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = recordedFor(req, []byte(tc.raw))
			if (err == nil) != tc.ok || err != nil && !errors.Is(err, errRecording) {
				t.Fatalf("recordedFor(%s, %q) = %v, want ok %v", tc.url, tc.raw, err, tc.ok)
			}
		})
	}
}

// chunkReader returns its data a few bytes a Read, then err (io.EOF when nil).
type chunkReader struct {
	data []byte
	err  error
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 7)], c.data)
	c.data = c.data[n:]
	return n, nil
}

func TestReadBody(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789"), 300_000) // above maxBodyPrealloc
	reset := errors.New("reset")
	tests := []struct {
		name string
		data []byte
		size int64 // announced length, -1 unknown
		err  error // after the data
	}{
		{"unknown length", []byte("hello, world"), -1, nil},
		{"exact length", []byte("hello, world"), 12, nil},
		{"announced longer than sent", []byte("hello"), 4096, nil},
		{"announced shorter than sent", []byte("hello, world"), 3, nil},
		{"empty", nil, 0, nil},
		{"larger than the preallocation", big, int64(len(big)), nil},
		{"error mid-body keeps what came", []byte("partial"), 100, reset},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := readBody(&chunkReader{data: tc.data, err: tc.err}, tc.size, nil)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if !bytes.Equal(got, tc.data) {
				t.Fatalf("read %d bytes, want %d", len(got), len(tc.data))
			}
			if tc.size == int64(len(tc.data)) && tc.size < maxBodyPrealloc && cap(got) != len(tc.data)+1 {
				t.Errorf("capacity %d for a body of the announced %d bytes: regrown", cap(got), tc.size)
			}
			reused, err := readBody(&chunkReader{data: tc.data, err: tc.err}, tc.size, append(make([]byte, 0, len(tc.data)+1), "x"...))
			if !errors.Is(err, tc.err) || !bytes.Equal(reused, tc.data) {
				t.Fatalf("into a used buffer: %q, %v", reused[:min(len(reused), 20)], err)
			}
		})
	}
}

func TestTailOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		raw, body string
		aliased   bool
	}{
		{"body sent as is", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "hello", true},
		{"empty body", "HTTP/1.1 204 No Content\r\n\r\n", "", true},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", "hello", false},
		{"bytes after the body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloJUNK", "hello", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, body := []byte(tc.raw), []byte(tc.body)
			got := tailOf(raw, body)
			if !bytes.Equal(got, body) {
				t.Fatalf("got %q, want %q", got, body)
			}
			aliased := len(got) > 0 && &got[0] == &raw[len(raw)-len(got)] || len(got) == 0 && tc.aliased
			if aliased != tc.aliased {
				t.Fatalf("aliased %v, want %v", aliased, tc.aliased)
			}
			if len(got) > 0 && !tc.aliased {
				body[0] = '!'
				if got[0] == '!' {
					t.Fatal("the copy shares the read buffer")
				}
			}
			if cap(got) != len(got) && tc.aliased {
				t.Fatalf("cap %d: an append could write past the payload", cap(got))
			}
		})
	}
}
