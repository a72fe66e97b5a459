package lookup

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
)

// Input limits.
const (
	maxURL       = 2048 // bytes of the url parameter
	maxQuery     = 4096 // bytes of the whole query string
	defaultLimit = 100  // captures per page of a prefix query
	maxLimit     = 1000
)

// routes builds the handler tree: every route counted, timed and given the security headers;
// anything else is a JSON 404, or 405 for a known path with the wrong method.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	m := s.metrics
	mux.Handle("GET /api/v1/captures", m.route("captures", s.handleCaptures))
	mux.Handle("GET /api/v1/record", m.route("record", s.handleRecord))
	mux.Handle("GET /api/v1/wacz", m.route("wacz", s.handleWACZ))
	mux.Handle("GET /shards/{path...}", m.route("shard", s.handleShard))
	mux.Handle("GET /api/v1/calendar", m.route("calendar", s.handleCalendarJSON))
	mux.Handle("GET /api/v1/releases", m.route("releases", s.handleReleases))
	s.cdxRoutes(mux)
	mux.Handle("GET /{$}", m.route("page", s.handlePage))
	mux.Handle("GET /calendar.svg", m.route("calendar_svg", s.handleCalendarSVG))
	mux.Handle("GET /static/", m.route("static", handleStatic))
	s.registerFeeds(mux)
	if s.opt.Metrics != nil {
		mux.Handle("GET /metrics", m.route("metrics", s.opt.Metrics.ServeHTTP))
	}
	mux.Handle("/", m.route("other", func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(&http.Request{Method: http.MethodGet, URL: r.URL, Host: r.Host}); pattern != "/" && pattern != "" {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s is read-only: use GET", r.URL.Path))
			return
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such page %s; the API is /api/v1/captures?url=URL", r.URL.Path))
	}))
	return s.front(mux) // Memento and CORS (memento.go)
}

// securityHeaders are set on every answer: nothing is framed, sniffed, or allowed to load from
// elsewhere; the page itself needs only its own stylesheet.
func securityHeaders(h http.Header) {
	for k, v := range security {
		h[k] = v
	}
}

// security are the header fields securityHeaders sets, in canonical form, built once.
var security = http.Header{
	"Content-Security-Policy":      {"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"},
	"X-Content-Type-Options":       {"nosniff"},
	"Referrer-Policy":              {"no-referrer"},
	"X-Frame-Options":              {"DENY"},
	"Cross-Origin-Resource-Policy": {"same-origin"},
}

// apiError is the body of every API error.
type apiError struct {
	Error     string `json:"error"`
	ReleaseAt string `json:"release_at,omitempty"`
}

// writeError answers with a JSON error of one line.
func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, apiError{Error: msg})
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"internal error: cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// query is a validated lookup request.
type query struct {
	raw    string // the url parameter as given
	key    string // its SURT
	prefix bool
	limit  int
	after  cursor
}

// parseQuery validates the parameters shared by the API and the page.
func parseQuery(r *http.Request) (query, error) {
	var q query
	if len(r.URL.RawQuery) > maxQuery {
		return q, fmt.Errorf("the query string is longer than %d bytes; shorten it", maxQuery)
	}
	v, err := queryValues(r.URL.RawQuery)
	if err != nil {
		return q, err
	}
	q.raw = strings.TrimSpace(v.Get("url"))
	switch {
	case q.raw == "":
		return q, errors.New("the url parameter is missing; ask for ?url=https://example.com/")
	case len(q.raw) > maxURL:
		return q, fmt.Errorf("the url is longer than %d bytes; shorten it", maxURL)
	}
	if !strings.Contains(q.raw, "://") {
		q.raw = "https://" + q.raw // what a person types into the search box
	}
	if err := checkURL(q.raw); err != nil {
		return q, err
	}
	key, err := surt.Key(q.raw)
	if err != nil {
		key, err = surt.ResourceKey(q.raw) // a page's snapshot: urn:dom: or urn:view: and its URL
	}
	if err != nil {
		return q, fmt.Errorf("%q is not an absolute http(s) URL; give one like https://example.com/page", q.raw)
	}
	q.key = key
	switch mt := v.Get("matchType"); mt {
	case "", "exact":
	case "prefix":
		q.prefix = true
	default:
		return q, fmt.Errorf("matchType %q is unknown; use exact or prefix", mt)
	}
	q.limit = defaultLimit
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxLimit {
			return q, fmt.Errorf("limit %q is not a number from 1 to %d", l, maxLimit)
		}
		q.limit = n
	}
	if c := v.Get("cursor"); c != "" {
		if q.after, err = parseCursor(c); err != nil {
			return q, fmt.Errorf("cursor %q is not one this service gave out; start again without it", c)
		}
	}
	return q, nil
}

// matcher returns the prefix matcher of a query: a URL that ends in "/" selects itself and what
// lies below it; any other selects every key that starts with its SURT.
func (q query) matcher() matcher {
	path := q.raw
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	dir := strings.HasSuffix(path, "/") && !strings.HasSuffix(q.key, ")/") && !strings.Contains(q.key, "?")
	return matcher{from: q.key, dir: dir}
}

// handleCaptures answers GET /api/v1/captures.
func (s *Server) handleCaptures(w http.ResponseWriter, r *http.Request) {
	ix, now := s.ix.Load(), s.now()
	if a, ok := s.answers.get(ix, r.URL.RawQuery, now); ok {
		a.write(w)
		return
	}
	q, err := parseQuery(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !q.prefix {
		cs, err := ix.exact(q.key)
		if err != nil {
			s.indexFailed(w, err)
			return
		}
		if len(cs) == 0 {
			writeError(w, http.StatusNotFound, fmt.Sprintf("%s has never been made public by this archive; check the URL, or list what lies below it with matchType=prefix", q.raw))
			return
		}
		s.writeCaptures(w, r, nil, q.raw, "", markDue(cs, now), "", answerKey{ix, r.URL.RawQuery, now})
		return
	}
	share := s.share(r) // the page's bytes, held until it is written
	defer share.release()
	page, more, err := ix.prefixHeld(q.matcher(), q.after, q.limit, share)
	switch {
	case errors.Is(err, errBusy), errors.Is(err, errClientGone):
		s.shareFailed(w, "captures", err)
		return
	case err != nil:
		s.indexFailed(w, err)
		return
	}
	next := ""
	if more {
		next = cursorAfter(&page[len(page)-1]).String()
	}
	s.writeCaptures(w, r, share, q.raw, "prefix", markDue(page, now), next, answerKey{})
}

// indexFailed answers 500 when the public index cannot be read (a damaged block): never a
// wrong answer. The error names the file and the command that rebuilds the index.
func (s *Server) indexFailed(w http.ResponseWriter, err error) {
	s.log.Error("public index read failed", "err", err)
	writeError(w, http.StatusInternalServerError, err.Error())
}

// cursor is the position of the last capture of a page: the next page starts after it. It names
// a position in the sort order, not an offset, so it stays valid across index reloads.
type cursor struct {
	key      string
	time     int64
	released bool
	file     string
	offset   int64
}

// cursorAfter is the cursor for a page that ended with c.
func cursorAfter(c *capture) cursor {
	return cursor{key: c.key(), time: c.time, released: c.released, file: c.file, offset: c.offset}
}

// capture returns a capture carrying only the cursor's sort fields.
func (c cursor) capture() capture {
	return capture{text: c.key, keyEnd: uint32(len(c.key)), urlEnd: uint32(len(c.key)), digestEnd: uint32(len(c.key)),
		time: c.time, released: c.released, file: c.file, offset: c.offset}
}

// String encodes the cursor for a URL.
func (c cursor) String() string {
	b, _ := json.Marshal([]any{c.key, c.time, c.released, c.file, c.offset})
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseCursor decodes a cursor made by String.
func parseCursor(s string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, fmt.Errorf("cursor: %w", err)
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return c, fmt.Errorf("cursor: %w", err)
	}
	if len(parts) != 5 {
		return c, errors.New("cursor: want 5 parts")
	}
	for i, dst := range []any{&c.key, &c.time, &c.released, &c.file, &c.offset} {
		if err := json.Unmarshal(parts[i], dst); err != nil {
			return c, fmt.Errorf("cursor part %d: %w", i, err)
		}
	}
	if c.key == "" {
		return c, errors.New("cursor: empty key")
	}
	return c, nil
}

// calendarJSON is the answer of /api/v1/calendar.
type calendarJSON struct {
	Generation  int64     `json:"generation"`
	LastPass    string    `json:"last_pass,omitempty"`
	NextRelease string    `json:"next_release,omitempty"`
	Released    int       `json:"released"`
	Embargoed   int       `json:"embargoed"`
	Due         int       `json:"due"` // of embargoed: release day before today, waiting for the next pass
	Days        []dayJSON `json:"days"`
}

// dayJSON is one day of upcoming releases.
type dayJSON struct {
	Date     string `json:"date"`
	Captures int    `json:"captures"`
}

// handleCalendarJSON answers GET /api/v1/calendar: the embargoed captures per release day from
// today on, and how many of them have a release day before today (due, waiting for the next pass).
func (s *Server) handleCalendarJSON(w http.ResponseWriter, r *http.Request) {
	ix := s.ix.Load()
	now := s.now()
	out := calendarJSON{Generation: ix.generation, Released: ix.released, Embargoed: ix.embargoed, Due: ix.overdue(now), Days: []dayJSON{}}
	if t := ix.state.LastPass; !t.IsZero() {
		out.LastPass = t.UTC().Format(time.RFC3339)
	}
	if t := ix.state.NextRelease; t != nil {
		out.NextRelease = t.UTC().Format(time.RFC3339)
	}
	for _, d := range ix.upcoming(now) {
		out.Days = append(out.Days, dayJSON{d.day.Format(time.DateOnly), d.count})
	}
	writeJSON(w, http.StatusOK, out)
}

// formatTime renders Unix nanoseconds as RFC 3339 UTC.
func formatTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
