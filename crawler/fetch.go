package crawler

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/crawler/extract"
	"golang.org/x/net/http/httpguts"
)

// maxHeaderBytes bounds a response's header section; a server sending more is an error.
const maxHeaderBytes = 256 << 10

// exchange is one HTTP request and response as they went over the wire, redirects not followed.
type exchange struct {
	URL       string
	Time      time.Time // when the request was sent
	IP        string    // the server's address
	Request   []byte    // raw request bytes as written
	Response  []byte    // raw response bytes as read: status line, header fields, (chunked) payload
	Truncated string    // "length" past the body limit, "time" past the whole-response timeout
	Status    int
	Header    http.Header
	Body      []byte // payload after transfer decoding, Content-Encoding as sent, at most the limit
}

// fetcher does single GETs over HTTP/1.1, recording the raw bytes of each exchange.
// Its transport keeps at most one connection per origin and never decompresses.
type fetcher struct {
	client    *http.Client
	userAgent string
	timeout   time.Duration
	now       func() time.Time
}

// newFetcher builds a fetcher; timeout bounds a whole exchange, body included. A host named in
// resolve is dialled at the IP address it maps to, without a name lookup.
func newFetcher(userAgent string, timeout time.Duration, now func() time.Time, resolve map[string]string) *fetcher {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	ascii := make(map[string]string, len(resolve)) // keyed as the transport dials: extract.ASCIIHost
	for h, ip := range resolve {
		if a, ok := extract.ASCIIHost(h); ok {
			ascii[a] = ip
		}
	}
	redirect := func(addr string) string {
		if host, port, err := net.SplitHostPort(addr); err == nil {
			if ip, ok := ascii[strings.ToLower(host)]; ok {
				return net.JoinHostPort(ip, port)
			}
		}
		return addr
	}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, redirect(addr))
			if err != nil {
				return nil, err
			}
			return &recConn{Conn: c}, nil
		},
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, redirect(addr))
			if err != nil {
				return nil, err
			}
			host, _, _ := net.SplitHostPort(addr)
			tc := tls.Client(c, &tls.Config{ServerName: host, NextProtos: []string{"http/1.1"}})
			hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := tc.HandshakeContext(hctx); err != nil {
				c.Close()
				return nil, err
			}
			return &recConn{Conn: tc}, nil
		},
		DisableCompression:     true,
		MaxConnsPerHost:        1,
		MaxIdleConnsPerHost:    1,
		MaxIdleConns:           4096,
		IdleConnTimeout:        90 * time.Second,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		TLSNextProto:           map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1 only: WARC records raw HTTP/1 bytes
	}
	return &fetcher{
		client: &http.Client{
			Transport:     tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		userAgent: userAgent,
		timeout:   timeout,
		now:       now,
	}
}

// close drops idle connections.
func (f *fetcher) close() { f.client.CloseIdleConnections() }

// fetch does one GET of rawURL, with hdr's fields added, and keeps at most limit bytes of payload. A body cut by the
// whole-response timeout is returned with Truncated "time"; network errors before or during
// the body (reset, refused, header timeout, oversized headers) are errors.
func (f *fetcher) fetch(ctx context.Context, rawURL string, limit int64, hdr http.Header) (*exchange, error) {
	var (
		rc  *recConn
		rec *recording
	)
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if c, ok := info.Conn.(*recConn); ok {
			rc = c
			rec = c.start(limit + maxHeaderBytes + 64<<10)
		}
	}}
	tctx, cancel := context.WithTimeout(httptrace.WithClientTrace(ctx, trace), f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", f.userAgent)
	sent := f.now()
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	buf := bodyBufs.Get().(*[]byte)
	defer putBodyBuf(buf)
	body, rerr := readBody(io.LimitReader(resp.Body, limit+1), min(resp.ContentLength, limit), *buf)
	*buf = body[:0]
	x := &exchange{URL: rawURL, Time: sent, Status: resp.StatusCode, Header: resp.Header}
	switch {
	case int64(len(body)) > limit:
		body, x.Truncated = body[:limit], "length"
	case rerr != nil && errors.Is(rerr, context.DeadlineExceeded) && ctx.Err() == nil:
		x.Truncated = "time"
	case rerr != nil:
		return nil, fmt.Errorf("fetch %s: body after %d bytes: %w", rawURL, len(body), rerr)
	}
	if rc == nil {
		return nil, fmt.Errorf("fetch %s: no recorded connection", rawURL)
	}
	x.Request, x.Response = rc.stop(rec)
	if err := recordedFor(req, x.Request); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	x.Body = tailOf(x.Response, body)
	if a, ok := rc.RemoteAddr().(*net.TCPAddr); ok {
		x.IP = a.IP.String()
	}
	return x, nil
}

// maxBodyPrealloc bounds the buffer a response's Content-Length sizes before its body arrives,
// and the buffers kept for reuse.
const maxBodyPrealloc = 1 << 20

// bodyBufs are buffers a body is read into, reused: the payload kept is a slice of the raw
// response, or a copy (tailOf).
var bodyBufs = sync.Pool{New: func() any { return new([]byte) }}

func putBodyBuf(b *[]byte) {
	if cap(*b) <= maxBodyPrealloc+1 {
		bodyBufs.Put(b)
	}
}

// tailOf returns body as the end of raw when raw ends with it (a body sent as is), else a copy.
func tailOf(raw, body []byte) []byte {
	if n := len(raw); bytes.HasSuffix(raw, body) {
		return raw[n-len(body) : n : n]
	}
	return bytes.Clone(body)
}

// readBody reads r to its end like io.ReadAll, appending to dst[:0]; when size is known (not
// negative) the buffer is made room for size bytes first, so that a body of the announced
// length is read without regrowing.
func readBody(r io.Reader, size int64, dst []byte) ([]byte, error) {
	n := 512
	if size >= 0 {
		n = int(min(size, maxBodyPrealloc)) + 1 // one more byte of room to read io.EOF into
	}
	b := dst[:0]
	if cap(b) < n {
		b = make([]byte, 0, n)
	}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// errRecording is an exchange whose recorded request is not the request made: the record would
// pair one URL with another's bytes, so the fetch fails instead.
var errRecording = errors.New("recorded exchange does not match the request")

// recordedFor checks that raw, the request bytes recorded for req, are req's own: the request
// line's target and the Host field are those the transport writes for req.
func recordedFor(req *http.Request, raw []byte) error {
	head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	lines := strings.Split(string(head), "\r\n")
	want := req.Method + " " + req.URL.RequestURI() + " HTTP/1.1"
	if lines[0] != want {
		return fmt.Errorf("%w: request line %q, want %q", errRecording, lines[0], want)
	}
	host, err := httpguts.PunycodeHostPort(req.URL.Host)
	if err != nil {
		return fmt.Errorf("%w: host %q: %w", errRecording, req.URL.Host, err)
	}
	for _, l := range lines[1:] {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, "Host") {
			if !strings.EqualFold(strings.TrimSpace(v), host) {
				return fmt.Errorf("%w: Host %q, want %q", errRecording, strings.TrimSpace(v), host)
			}
			return nil
		}
	}
	return fmt.Errorf("%w: no Host field", errRecording)
}

// recording holds the bytes of one exchange on a connection, in buffers from recBufs.
type recording struct {
	max    int64
	wr, rd *bytes.Buffer
}

// recBufs are the buffers recordings grow, reused: stop hands out copies of exactly the bytes
// recorded, so a crawl does not regrow a buffer from scratch for every response.
var recBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putRecBuf returns b to recBufs unless it grew past what is worth keeping.
func putRecBuf(b *bytes.Buffer) {
	if b.Cap() <= maxBodyPrealloc+maxHeaderBytes {
		b.Reset()
		recBufs.Put(b)
	}
}

// recConn records what is written to and read from a connection, for the exchange in progress.
// Each exchange gets a recording of its own (start): the next exchange on the connection cannot
// write into, reset or take the bytes of the one before, even when that one's fetch has not
// stopped recording yet (the transport hands the connection on once a body is read to its end).
type recConn struct {
	net.Conn
	mu  sync.Mutex
	cur *recording // the exchange in progress; nil between exchanges
}

// start begins the recording of one exchange, keeping at most max bytes read; the previous
// exchange's recording, if still current, ends here.
func (c *recConn) start(max int64) *recording {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur = &recording{max: max, wr: recBufs.Get().(*bytes.Buffer), rd: recBufs.Get().(*bytes.Buffer)}
	return c.cur
}

// stop ends r and returns copies of the bytes written and read while it was current. Nothing
// records into r once it is no longer current, so its buffers go back to recBufs.
func (c *recConn) stop(r *recording) (written, read []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == r {
		c.cur = nil
	}
	if r.wr == nil { // stopped before
		return nil, nil
	}
	written, read = bytes.Clone(r.wr.Bytes()), bytes.Clone(r.rd.Bytes())
	putRecBuf(r.wr)
	putRecBuf(r.rd)
	r.wr, r.rd = nil, nil
	return written, read
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if r := c.cur; r != nil {
			if room := r.max - int64(r.rd.Len()); room > 0 {
				r.rd.Write(p[:min(int64(n), room)])
			}
		}
		c.mu.Unlock()
	}
	return n, err
}

// Write records p before writing it: the server may answer, and the exchange end, before a
// descheduled writer would get to record after the write returned.
func (c *recConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	r := c.cur
	if r != nil {
		r.wr.Write(p)
	}
	c.mu.Unlock()
	n, err := c.Conn.Write(p)
	if r != nil && n < len(p) { // keep only what went out
		c.mu.Lock()
		if r.wr != nil && r.wr.Len() >= len(p)-n { // nil: stopped meanwhile
			r.wr.Truncate(r.wr.Len() - (len(p) - n))
		}
		c.mu.Unlock()
	}
	return n, err
}
