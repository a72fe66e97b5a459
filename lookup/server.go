// Package lookup serves what the archive has made public: a JSON API and a page for people over
// the public index the releaser writes (public/pubindex: the public CDXJ lines of released
// captures and tombstones, in segments it opens read-only without loading them), and the
// released records themselves. It reads only the public directory, never the sealed
// repository, and never writes anything.
//
// Routes:
//
//	GET /api/v1/captures?url=URL[&matchType=exact|prefix&limit=N&cursor=C]   captures of a URL (or below a prefix)
//	GET /api/v1/record?url=URL[&timestamp=T&format=warc|warc.gz|payload]     a released record, streamed; Range answered (ranges.go)
//	GET /api/v1/wacz?url=URL[&timestamp=T]                                   a released page's WACZ package, for ReplayWeb.page (wacz.go)
//	GET /api/v1/calendar                                                     upcoming releases per day
//	GET /api/v1/releases?day=YYYY-MM-DD[&limit=N&cursor=C]                   the captures of one release day, paged (day.go)
//	GET /cdx?url=URL[&matchType=…&from=…&to=…&filter=…&fl=…&output=…]        the CDX server API (cdxapi.go); also /api/v1/cdx
//	GET /timegate/URL, /timemap/link/URL, /timemap/json/URL                  Memento, RFC 7089 (memento.go)
//	GET /[?url=URL[&matchType=prefix&cursor=C]]                              the page: the archive at a glance, a capture card, or a prefix list
//	GET /?url=URL&view=timeline, /?day=YYYY-MM-DD[&cursor=C]                 the page: a URL's timeline (timeline.go), a release day (day.go)
//	GET /calendar.svg[?layout=tall]                                          the release calendar alone
//	GET /feed/{releases,upcoming}.{atom,json}[?host=HOST|?prefix=URL]        release feeds, Atom and JSON Feed (feed.go)
package lookup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/archivectl/archivectl/internal/watch"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configures a Server; the zero value is usable.
type Options struct {
	Now        func() time.Time      // the clock for countdowns, the calendar and due captures (never a capture's state); time.Now when nil
	Logger     *slog.Logger          // slog.Default() when nil
	Registerer prometheus.Registerer // where the lookup's metrics go; none registered when nil
	Metrics    http.Handler          // served at /metrics when set
	Refresh    time.Duration         // how often Watch checks state.json and the index manifest; 250ms when zero
	// ReleaseMetrics also registers the release metrics public/state.json answers (last pass,
	// next release, captures released and tombstoned), for a process that runs no release daemon.
	ReleaseMetrics bool
	// CORSOrigins are the origins whose scripts may read the read-only APIs (/cdx, /timegate/,
	// /timemap/, /api/v1/); any origin ("*") when empty.
	CORSOrigins []string
	// MaxHeldBytes bounds the bytes all requests together hold in memory for heavy answers: a
	// record kept until it is verified, a large captures answer (held.go); 64 MiB when zero. A
	// request that cannot get its share within HeldWait (1s when zero) answers 503 with Retry-After.
	MaxHeldBytes int64
	HeldWait     time.Duration
	// ReplayURL is the ReplayWeb.page instance the page's "Open as page" links open a released
	// page in (its package, /api/v1/wacz, as the source): DefaultReplayURL when empty, and no
	// such link when it is "off".
	ReplayURL string
	// WriteStall is how long one write of a record or a large captures answer may wait for a
	// reader that does not read (15s when zero); each write that goes through gets a new deadline.
	WriteStall time.Duration
}

// Server is the lookup service over one public directory. It is an http.Handler.
type Server struct {
	fsys    fs.FS
	opt     Options
	log     *slog.Logger
	now     func() time.Time
	ix      atomic.Pointer[index]
	mu      sync.Mutex // serialises Refresh
	seen    seen       // state.json and the index manifest the current index was loaded from
	metrics *metrics
	handler http.Handler
	// Records whose answer is at most maxVerified bytes are verified before the status line.
	maxVerified int
	damaged     prometheus.Counter // records refused or cut off because they failed a check
	held        *heldBudget        // the bytes heavy answers hold, across all requests (held.go)
	growing     chan struct{}      // the one turn to grow a heldShare (held.go)
	rejected    *prometheus.CounterVec
	recent      atomic.Pointer[recentList]
	feeds       feedCache   // the release feeds read from the current index (feed.go)
	pages       pageCache   // the last pages' packages laid out (wacz.go)
	answers     answerCache // encoded exact captures answers (answers.go)
}

// maxVerified is how much of a record answer is held until the record is verified.
const maxVerified = 8 << 20

// Open returns a Server over the public directory dir, with its index loaded. dir is opened as
// an os.Root, so no name in an index can reach outside it; it may not exist yet (nothing has
// been released), in which case the index is empty until it appears.
func Open(dir string, opt Options) (*Server, error) {
	return New(&rootFS{dir: dir}, opt)
}

// New returns a Server over the public directory fsys, with its index loaded.
func New(fsys fs.FS, opt Options) (*Server, error) {
	if err := CheckReplayURL(opt.ReplayURL); err != nil {
		return nil, fmt.Errorf("replay URL %q: %w", opt.ReplayURL, err)
	}
	s := &Server{fsys: fsys, opt: opt, log: opt.Logger, now: opt.Now, maxVerified: maxVerified}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.opt.Refresh <= 0 {
		s.opt.Refresh = 250 * time.Millisecond
	}
	if s.opt.MaxHeldBytes <= 0 {
		s.opt.MaxHeldBytes = defaultMaxHeld
	}
	if s.opt.HeldWait <= 0 {
		s.opt.HeldWait = defaultHeldWait
	}
	if s.opt.WriteStall <= 0 {
		s.opt.WriteStall = defaultStall
	}
	s.held, s.growing = newHeldBudget(s.opt.MaxHeldBytes), make(chan struct{}, 1)
	m, err := newMetrics(opt.Registerer)
	if err != nil {
		return nil, err
	}
	s.metrics = m
	s.damaged = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "archivectl_lookup_damaged_records_total",
		Help: "Released records refused (500) or cut off mid-answer because they failed their gzip or digest checks.",
	})
	s.rejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "archivectl_lookup_heavy_rejected_total",
		Help: "Heavy answers (a record held until verified, a large captures answer) refused 503 because the held-bytes budget stayed full, by route.",
	}, []string{"route"})
	heldBytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "archivectl_lookup_held_bytes",
		Help: "Bytes heavy answers hold now out of the held-bytes budget (Options.MaxHeldBytes).",
	}, func() float64 { return float64(s.held.held()) })
	if opt.Registerer != nil {
		for _, c := range []prometheus.Collector{s.damaged, s.rejected, heldBytes} {
			if err := opt.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("register lookup metrics: %w", err)
			}
		}
		due := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "archivectl_lookup_captures_due",
			Help: "Captures under embargo whose release day (UTC) is before today on the lookup's clock: due, waiting for the next release pass.",
		}, func() float64 { return float64(s.ix.Load().overdue(s.now())) })
		if err := opt.Registerer.Register(due); err != nil {
			return nil, fmt.Errorf("register lookup metrics: %w", err)
		}
		if opt.ReleaseMetrics {
			if err := opt.Registerer.Register(newStateCollector(s)); err != nil {
				return nil, fmt.Errorf("register release metrics: %w", err)
			}
		}
	}
	s.ix.Store(&index{})
	if _, err := s.Refresh(); err != nil {
		return nil, err
	}
	s.handler = withHeaders(s.routes())
	return s, nil
}

// Cache-Control of the answers: a released record's bytes never change (public files are never
// rewritten); every other answer may change with the next release pass, so a cache must ask
// again (a handler may set its own, as the static files do).
const (
	cacheRecord  = "public, max-age=31536000, immutable"
	cacheDefault = "no-cache"
)

// noCache is the Cache-Control value of most answers, shared (net/http only reads it).
var noCache = []string{cacheDefault}

// withHeaders gives every answer of h, the ServeMux's own redirects included, the security
// headers and a Cache-Control. The 400 and 431 that net/http writes itself, before any handler
// runs (a malformed request, a head over MaxHeaderBytes), are beyond any handler's reach.
func withHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		securityHeaders(hd)
		// The canonical key set directly: no canonicalising on the hot path.
		hd["Cache-Control"] = noCache
		if r.URL.Path == "/api/v1/record" && r.URL.Query().Get("timestamp") != "" { // without one: the newest, which a pass may change
			w = &recordCache{ResponseWriter: w}
		}
		h.ServeHTTP(w, r)
	})
}

// recordCache marks a record answered whole (200) as immutable.
type recordCache struct {
	http.ResponseWriter
	wrote bool
}

func (w *recordCache) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.wrote = true
		if code == http.StatusOK && w.Header().Get("Cache-Control") == cacheDefault {
			w.Header().Set("Cache-Control", cacheRecord)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordCache) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *recordCache) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Refresh opens the public index again when its manifest has changed since the last time
// (a release commit, a rebuild), and reads state.json again when it has changed; it reports
// whether the index changed. Opening reads only the manifest and the new segments' tables;
// the old index keeps answering until the new one is open, and is replaced in one step. A
// pass never waits for the lookup, nor the lookup for a pass: segments are immutable files.
func (s *Server) Refresh() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now, err := look(s.fsys)
	if err != nil {
		return false, err
	}
	cur := s.ix.Load()
	if cur.loaded && now.equal(s.seen) {
		return false, nil
	}
	next := *cur
	if !cur.loaded || !bytes.Equal(now.state, s.seen.state) {
		ps, err := public.ReadStatus(s.fsys)
		if err != nil {
			s.metrics.reloads.WithLabelValues("error").Inc()
			return false, err
		}
		next.state, next.generation = ps, ps.Generation
	}
	if cur.loaded && bytes.Equal(now.manifest, s.seen.manifest) {
		s.ix.Store(&next)
		s.seen = now
		return false, nil
	}
	start := time.Now()
	set, err := pubindex.Open(s.fsys, cur.set)
	if err != nil {
		s.metrics.reloads.WithLabelValues("error").Inc()
		return false, err
	}
	ix := next.withSet(set)
	ix.loadedIn = time.Since(start)
	s.ix.Store(ix)
	s.seen = now
	s.metrics.loaded(ix)
	s.log.Info("public index opened", "generation", set.Manifest.Generation, "segments", set.Segments(), "bytes", set.Bytes(),
		"released", ix.released, "embargoed", ix.embargoed, "malformed_lines", ix.badLines, "took", ix.loadedIn.Round(time.Microsecond))
	return true, nil
}

// Watch checks state.json and the index manifest every Options.Refresh and reloads what
// changed, until ctx ends.
func (s *Server) Watch(ctx context.Context) {
	watch.Every(ctx, s.opt.Refresh, func(context.Context) error {
		_, err := s.Refresh()
		return err
	}, func(err error) { s.log.Warn("public index not reloaded; still serving the previous one", "err", err) })
}

// rootFS is the public directory opened as an os.Root on first use, so that it may appear
// after the service starts and no name inside it can lead outside it.
type rootFS struct {
	dir  string
	mu   sync.Mutex
	root *os.Root
}

// Open opens name inside the public directory.
func (r *rootFS) Open(name string) (fs.File, error) {
	r.mu.Lock()
	if r.root == nil {
		root, err := os.OpenRoot(r.dir)
		if err != nil {
			r.mu.Unlock()
			if errors.Is(err, fs.ErrNotExist) {
				return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
			}
			return nil, fmt.Errorf("open public directory: %w", err)
		}
		r.root = root
	}
	root := r.root
	r.mu.Unlock()
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return root.Open(name)
}
