// Package crawlertest provides HTTP servers for crawler tests: loopback origins that log every
// request they serve, so that politeness is checked from the server's side, and the
// misbehaving responses a crawler must survive (endless and trickling bodies, redirect loops,
// huge headers, a gzip bomb, bad dates, resets mid-body, binary garbage as HTML and a huge
// robots.txt), to mount on them.
package crawlertest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"
)

// Hit is one request as the server saw it.
type Hit struct {
	Path       string // the request URI
	UserAgent  string
	Start, End time.Time
	Abandoned  bool // the client went away before the handler finished
}

// Server is a loopback origin that logs every request it serves.
type Server struct {
	*httptest.Server
	mu   sync.Mutex
	hits []Hit
}

// NewServer starts a Server on 127.0.0.1 serving h; the caller closes it.
func NewServer(h http.Handler) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &hijackWatch{ResponseWriter: w}
		defer func() {
			end := time.Now()
			if rw.closed != nil {
				end = *rw.closed
			}
			s.mu.Lock()
			s.hits = append(s.hits, Hit{Path: r.URL.RequestURI(), UserAgent: r.UserAgent(), Start: start, End: end, Abandoned: r.Context().Err() != nil})
			s.mu.Unlock()
		}()
		h.ServeHTTP(rw, r)
	}))
	return s
}

// Log returns the requests served so far, in order of arrival.
func (s *Server) Log() []Hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := slices.Clone(s.hits)
	slices.SortFunc(h, func(a, b Hit) int { return a.Start.Compare(b.Start) })
	return h
}

// Paths lists the requested paths in order of arrival.
func (s *Server) Paths() []string {
	var p []string
	for _, h := range s.Log() {
		p = append(p, h.Path)
	}
	return p
}

// CheckPolite checks the log: robots.txt first, never two requests at once, at least gap
// between the end of one request and the start of the next. A request the client abandoned
// (a body cut by its limit or timeout) ends when the client closes the connection, which the
// server notices a moment later: only the order of starts is checked after it. The error
// lists every breach.
func (s *Server) CheckPolite(gap time.Duration) error {
	hits := s.Log()
	if len(hits) == 0 {
		return errors.New("no request")
	}
	var errs []error
	if hits[0].Path != "/robots.txt" {
		errs = append(errs, fmt.Errorf("first request %s, want /robots.txt", hits[0].Path))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i-1].Abandoned {
			continue
		}
		if hits[i].Start.Before(hits[i-1].End) {
			errs = append(errs, fmt.Errorf("%s started before %s ended: two requests in flight", hits[i].Path, hits[i-1].Path))
		}
		if d := hits[i].Start.Sub(hits[i-1].End); d < gap {
			errs = append(errs, fmt.Errorf("%s came %v after %s ended, want at least %v", hits[i].Path, d, hits[i-1].Path, gap))
		}
	}
	return errors.Join(errs...)
}

// Pages serves a small site from a map of path → HTML (robots.txt as text); other paths are 404.
func Pages(m map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
		} else {
			w.Header().Set("Content-Type", "text/html")
		}
		io.WriteString(w, body)
	})
}

// hijackWatch notes when a hijacked connection is closed: that, not the handler's return, ends
// the exchange for the client.
type hijackWatch struct {
	http.ResponseWriter
	closed *time.Time
}

func (w *hijackWatch) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *hijackWatch) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *hijackWatch) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, buf, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return &closeWatch{Conn: c, at: &w.closed}, buf, nil
}

type closeWatch struct {
	net.Conn
	at **time.Time
}

func (c *closeWatch) Close() error {
	now := time.Now()
	*c.at = &now
	return c.Conn.Close()
}
