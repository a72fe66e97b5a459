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
	redirect := func(addr string) string {
		if host, port, err := net.SplitHostPort(addr); err == nil {
			if ip, ok := resolve[strings.ToLower(host)]; ok {
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
	var rc *recConn
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if c, ok := info.Conn.(*recConn); ok {
			rc = c
			c.start(limit + maxHeaderBytes + 64<<10)
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
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	x := &exchange{URL: rawURL, Time: sent, Status: resp.StatusCode, Header: resp.Header, Body: body}
	switch {
	case int64(len(body)) > limit:
		x.Body, x.Truncated = body[:limit], "length"
	case rerr != nil && errors.Is(rerr, context.DeadlineExceeded) && ctx.Err() == nil:
		x.Truncated = "time"
	case rerr != nil:
		return nil, fmt.Errorf("fetch %s: body after %d bytes: %w", rawURL, len(body), rerr)
	}
	if rc == nil {
		return nil, fmt.Errorf("fetch %s: no recorded connection", rawURL)
	}
	x.Request, x.Response = rc.stop()
	if a, ok := rc.RemoteAddr().(*net.TCPAddr); ok {
		x.IP = a.IP.String()
	}
	return x, nil
}

// recConn records what is written to and read from a connection while recording is on.
// One exchange at a time uses a connection, so start/stop bracket exactly one exchange.
type recConn struct {
	net.Conn
	mu     sync.Mutex
	on     bool
	max    int64
	wr, rd bytes.Buffer
}

// start begins recording one exchange, keeping at most max bytes read.
func (c *recConn) start(max int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on, c.max = true, max
	c.wr.Reset()
	c.rd.Reset()
}

// stop ends recording and returns copies of the bytes written and read.
func (c *recConn) stop() (written, read []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return bytes.Clone(c.wr.Bytes()), bytes.Clone(c.rd.Bytes())
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if c.on {
			if room := c.max - int64(c.rd.Len()); room > 0 {
				c.rd.Write(p[:min(int64(n), room)])
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
	on := c.on
	if on {
		c.wr.Write(p)
	}
	c.mu.Unlock()
	n, err := c.Conn.Write(p)
	if on && n < len(p) { // keep only what went out
		c.mu.Lock()
		if c.on && c.wr.Len() >= len(p)-n {
			c.wr.Truncate(c.wr.Len() - (len(p) - n))
		}
		c.mu.Unlock()
	}
	return n, err
}
