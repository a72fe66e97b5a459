// Package demoweb serves an embedded demonstration web on loopback: several origins, each
// with its own port and its own robots.txt policy (none, Archive-Embargo w, m and q, an
// invalid embargo, an unavailable robots.txt, Content-Usage preferences). Every page body
// carries a marker "BODY-MARKER-<origin>-<page>" so tests can prove which bodies became
// public, and the site logs every request it serves so tests can check politeness.
package demoweb

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

//go:embed site
var siteFS embed.FS

// Origin is one demo web site, served on its own loopback port.
type Origin struct {
	Name        string // directory name under site/, e.g. "weekly"
	Policy      string // what its robots.txt and headers ask for, in words
	URL         string // http://127.0.0.1:PORT, no trailing slash
	Home        string // path of the home page, e.g. "/" or "/news/"
	EmbargoDays int    // the embargo its robots.txt asks of archivectl; 0 when none applies
}

// Page is one file an origin serves, with the marker its body carries.
type Page struct {
	Origin string      // origin name
	Path   string      // URL path, "/news/" for news/index.html
	URL    string      // absolute URL
	Marker string      // "BODY-MARKER-<origin>-<page>", or "" for a file without one (robots.txt)
	Status int         // the status it is served with
	Header http.Header // the extra response fields it is served with (Last-Modified, Content-Usage…)
}

// Options tune a Site; the zero value is what Start uses.
type Options struct {
	// Latency is how long every response takes, so overlapping requests show in the log.
	Latency time.Duration
	// Now is the clock for the request log and for relative Last-Modified values; time.Now when nil.
	Now func() time.Time

	hold func(path string) // test hook: called once a request is logged, before it is answered
}

// Site is the running demo web; Close stops it.
type Site struct {
	Origins []Origin

	pages   []Page
	log     requestLog
	servers []*http.Server
	once    sync.Once
}

// Start serves every origin of the embedded site on its own 127.0.0.1 port.
func Start() (*Site, error) { return StartWith(Options{}) }

// StartWith is Start with options.
func StartWith(o Options) (*Site, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Site{log: requestLog{now: o.Now}}
	dirs, err := fs.ReadDir(siteFS, "site")
	if err != nil {
		return nil, fmt.Errorf("read embedded demo site: %w", err)
	}
	started := o.Now().UTC().Truncate(time.Second)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		if err := s.serve(d.Name(), started, o); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// serve loads one origin and starts its listener.
func (s *Site) serve(name string, started time.Time, o Options) error {
	files, err := fs.Sub(siteFS, "site/"+name)
	if err != nil {
		return fmt.Errorf("demo origin %s: %w", name, err)
	}
	m, err := loadManifest(files, started)
	if err != nil {
		return fmt.Errorf("demo origin %s: %w", name, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("demo origin %s: listen on loopback: %w", name, err)
	}
	org := Origin{Name: name, Policy: m.Policy, URL: "http://" + ln.Addr().String(), Home: m.Home, EmbargoDays: m.EmbargoDays}
	h := &handler{origin: name, files: files, manifest: m, log: &s.log, latency: o.Latency, hold: o.hold}
	pages, err := h.pages(org.URL)
	if err != nil {
		ln.Close()
		return fmt.Errorf("demo origin %s: %w", name, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed when Close stops it
	s.Origins = append(s.Origins, org)
	s.pages = append(s.pages, pages...)
	s.servers = append(s.servers, srv)
	return nil
}

// Seeds returns one home-page URL per origin, in origin order.
func (s *Site) Seeds() []string {
	out := make([]string, len(s.Origins))
	for i, o := range s.Origins {
		out[i] = o.URL + o.Home
	}
	return out
}

// Origin returns the origin with this name.
func (s *Site) Origin(name string) (Origin, bool) {
	i := slices.IndexFunc(s.Origins, func(o Origin) bool { return o.Name == name })
	if i < 0 {
		return Origin{}, false
	}
	return s.Origins[i], true
}

// Pages lists every file the site serves, by origin and path.
func (s *Site) Pages() []Page { return slices.Clone(s.pages) }

// Requests returns the server-side request log so far, in the order requests arrived.
// A request still being answered has a zero End.
func (s *Site) Requests() []Request { return s.log.snapshot() }

// Close stops every origin, letting requests in progress finish for up to two seconds.
func (s *Site) Close() {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		for _, srv := range s.servers {
			if err := srv.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) {
				srv.Close()
			}
		}
	})
}
