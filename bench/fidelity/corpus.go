package main

import (
	"bufio"
	"bytes"
	"fmt"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// page is one page of the corpus: its path under the corpus directory and the origin (a, b or c)
// that serves it as a seed.
type page struct {
	Origin string
	Path   string
}

// readPages reads corpus/pages.txt: "ORIGIN PATH" a line, # comments.
func readPages(dir string) ([]page, error) {
	f, err := os.Open(filepath.Join(dir, "pages.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ps []page
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		o, p, ok := strings.Cut(line, " ")
		if !ok || (o != "a" && o != "b" && o != "c") {
			return nil, fmt.Errorf("pages.txt:%d: want \"a|b|c PATH\", got %q", n, line)
		}
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return nil, fmt.Errorf("pages.txt:%d: %w", n, err)
		}
		ps = append(ps, page{Origin: o, Path: p})
	}
	return ps, sc.Err()
}

// placeholders are the origins the corpus's edited pages name for their cross-origin loads; the
// servers write the loopback origin of the run in their place.
var placeholders = map[string]string{"a": "http://fidelity-a.invalid", "b": "http://fidelity-b.invalid", "c": "http://fidelity-c.invalid"}

// robots is each origin's robots.txt: all three permit everything, in three spellings.
var robots = map[string]string{
	"a": "User-agent: *\nAllow: /\n",
	"b": "User-agent: *\nDisallow:\n",
	"c": "# the corpus's third origin\nUser-agent: archivectl\nAllow: /\n\nUser-agent: *\nAllow: /\n",
}

// site is the corpus served on three loopback origins, each serving the whole tree, with
// robots.txt permitting, CORS open (the pages fetch across origins), and a log of requests.
type site struct {
	Origins   map[string]string // a, b, c -> http://127.0.0.1:PORT
	servers   []*http.Server
	mu        sync.Mutex
	requests  map[string]int // origin letter -> requests answered
	inFlight  map[string]int
	maxFlight map[string]int
	chromium  int // requests whose User-Agent is Chromium's: made by a browser itself
}

// startSite serves dir on three loopback ports.
func startSite(dir string) (*site, error) {
	s := &site{Origins: map[string]string{}, requests: map[string]int{}, inFlight: map[string]int{}, maxFlight: map[string]int{}}
	lns := map[string]net.Listener{}
	for _, o := range []string{"a", "b", "c"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.Close()
			return nil, err
		}
		lns[o] = ln
		s.Origins[o] = "http://" + ln.Addr().String()
	}
	for o, ln := range lns {
		srv := &http.Server{Handler: s.handler(dir, o)}
		s.servers = append(s.servers, srv)
		go srv.Serve(ln)
	}
	return s, nil
}

// URL is the address of a corpus path on an origin.
func (s *site) URL(p page) string { return s.Origins[p.Origin] + "/" + p.Path }

func (s *site) handler(dir, origin string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[origin]++
		s.inFlight[origin]++
		s.maxFlight[origin] = max(s.maxFlight[origin], s.inFlight[origin])
		if strings.Contains(r.UserAgent(), "Chrome/") {
			s.chromium++
		}
		s.mu.Unlock()
		defer func() { s.mu.Lock(); s.inFlight[origin]--; s.mu.Unlock() }()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, robots[origin])
			return
		}
		clean := path.Clean("/" + r.URL.Path)
		file := filepath.Join(dir, filepath.FromSlash(clean))
		if !strings.HasPrefix(clean, "/dom-examples/") && !strings.HasPrefix(clean, "/learning-area/") {
			http.NotFound(w, r)
			return
		}
		fi, err := os.Stat(file)
		if err == nil && fi.IsDir() {
			file = filepath.Join(file, "index.html")
		}
		body, err := os.ReadFile(file)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		ctype := mime.TypeByExtension(path.Ext(file))
		if ctype == "" {
			ctype = http.DetectContentType(body)
		}
		if textual(ctype) {
			for o, ph := range placeholders {
				body = bytes.ReplaceAll(body, []byte(ph), []byte(s.Origins[o]))
			}
		}
		w.Header().Set("Content-Type", ctype)
		http.ServeContent(w, r, file, fi.ModTime(), bytes.NewReader(body))
	})
}

func textual(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "javascript") || strings.Contains(ctype, "json")
}

// MaxInFlight is the most requests an origin answered at once.
func (s *site) MaxInFlight() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]int{}
	for o, n := range s.maxFlight {
		m[o] = n
	}
	return m
}

// ChromiumRequests is how many requests came from a browser itself (its User-Agent).
func (s *site) ChromiumRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chromium
}

// ResetStats forgets the counts, between tools.
func (s *site) ResetStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.requests)
	clear(s.maxFlight)
	s.chromium = 0
}

func (s *site) Close() {
	for _, srv := range s.servers {
		srv.Close()
	}
}
