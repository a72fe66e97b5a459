package lookup

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
)

// Memento (RFC 7089; docs/formats.md#memento): a TimeGate at /timegate/URL, TimeMaps at
// /timemap/link/URL and /timemap/json/URL, and Memento-Datetime and Link on every record
// answer, the record API's URLs being the mementos. Only released captures are mementos; a URL
// whose captures are all under embargo answers 451 (RFC 7725) with Retry-After at its release.
// The CORS header fields of the read-only APIs are set here too.

// Path prefixes the front handler answers itself: the URL in the path keeps its "//", which
// ServeMux would clean into a redirect.
const (
	timegatePrefix     = "/timegate/"
	timemapLinkPrefix  = "/timemap/link/"
	timemapJSONPrefix  = "/timemap/json/"
	timemapPrefix      = "/timemap/"
	statusUnavailable  = http.StatusUnavailableForLegalReasons // 451, RFC 7725
	linkFormat         = "application/link-format"
	corsExposedHeaders = "Link, Memento-Datetime, Retry-After, Content-Range, Accept-Ranges, Content-Disposition, X-Archive-Status, X-Archive-Embargoed-Requisites"
)

// front answers the Memento routes and CORS, and hands everything else to mux.
func (s *Server) front(mux *http.ServeMux) http.Handler {
	m := s.metrics
	timegate := m.route("timegate", s.handleTimegate)
	timemap := m.route("timemap", s.handleTimemap)
	preflight := m.route("preflight", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	readOnly := m.route("other", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s is read-only: use GET", r.URL.Path))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		api := p == "/cdx" || strings.HasPrefix(p, "/api/v1/") || strings.HasPrefix(p, "/shards/") || strings.HasPrefix(p, timegatePrefix) || strings.HasPrefix(p, timemapPrefix)
		if api {
			s.cors(w, r)
			if r.Method == http.MethodOptions {
				preflight.ServeHTTP(w, r)
				return
			}
		}
		var h http.Handler
		switch {
		case strings.HasPrefix(p, timegatePrefix):
			h = timegate
		case strings.HasPrefix(p, timemapPrefix):
			h = timemap
		default:
			mux.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h = readOnly
		}
		h.ServeHTTP(w, r)
	})
}

// cors sets the CORS header fields of an API answer (and of its preflight): any origin by
// default, else the origin of the request when Options.CORSOrigins lists it.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	allow := "*"
	if len(s.opt.CORSOrigins) > 0 {
		h.Add("Vary", "Origin")
		o := r.Header.Get("Origin")
		if !slices.Contains(s.opt.CORSOrigins, o) {
			return
		}
		allow = o
	}
	if allow == "*" {
		h["Access-Control-Allow-Origin"] = anyOrigin // canonical keys set directly, values shared
	} else {
		h.Set("Access-Control-Allow-Origin", allow)
	}
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Accept-Datetime, Range, If-Range")
		h.Set("Access-Control-Max-Age", "86400")
		return
	}
	h["Access-Control-Expose-Headers"] = corsExposed
}

// anyOrigin and corsExposed are CORS header values, shared (net/http only reads them).
var (
	anyOrigin   = []string{"*"}
	corsExposed = []string{corsExposedHeaders}
)

// mementoTarget reads the URL a TimeGate or TimeMap request names after prefix, from the
// request URI as sent (its "//" and its own query intact). A URL percent-encoded whole
// (https%3A%2F%2F…) is decoded; one whose "//" a proxy folded to "/" is mended.
func mementoTarget(r *http.Request, prefix string) (raw, key string, err error) {
	rest := r.RequestURI
	if !strings.HasPrefix(rest, prefix) { // absolute-form, or a request made in a test without it
		rest = r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			rest += "?" + r.URL.RawQuery
		}
	}
	rest = strings.TrimPrefix(rest, prefix)
	if l := strings.ToLower(rest); strings.HasPrefix(l, "http%3a") || strings.HasPrefix(l, "https%3a") {
		if u, err := url.QueryUnescape(rest); err == nil {
			rest = u
		}
	}
	for _, scheme := range []string{"http:/", "https:/"} {
		if strings.HasPrefix(rest, scheme) && !strings.HasPrefix(rest, scheme+"/") {
			rest = scheme + "/" + rest[len(scheme):]
		}
	}
	switch {
	case rest == "":
		return "", "", fmt.Errorf("no URL after %s; ask for %shttps://example.com/", prefix, prefix)
	case len(rest) > maxURL:
		return "", "", fmt.Errorf("the url is longer than %d bytes; shorten it", maxURL)
	}
	if !strings.Contains(rest, "://") {
		rest = "https://" + rest
	}
	if err := checkURL(rest); err != nil {
		return "", "", err
	}
	if key, err = surt.Key(rest); err != nil {
		return "", "", fmt.Errorf("%q is not an absolute http(s) URL; give one like https://example.com/page", rest)
	}
	return rest, key, nil
}

// baseURL is this service's origin as the client reached it, for the absolute URIs of Link
// header fields and TimeMaps (a proxy's X-Forwarded-Proto: https is believed).
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// recordPath is the record API's URL of a capture: its memento.
func recordPath(u string, t int64) string {
	return "/api/v1/record?url=" + url.QueryEscape(u) + "&timestamp=" + time.Unix(0, t).UTC().Format(public.Timestamp14)
}

// httpDate renders Unix nanoseconds as an HTTP-date (RFC 1123, GMT).
func httpDate(ns int64) string { return time.Unix(0, ns).UTC().Format(http.TimeFormat) }

// releasedAsc returns the released captures of cs (one key's, newest first), oldest first.
func releasedAsc(cs []capture) []*capture {
	var out []*capture
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].released {
			out = append(out, &cs[i])
		}
	}
	return out
}

// closestIndex is the index in cs (oldest first) of the capture closest in time to t (Unix
// nanoseconds), the earlier on a tie.
func closestIndex(cs []*capture, t int64) int {
	i, _ := slices.BinarySearchFunc(cs, t, func(c *capture, t int64) int { return compareInt64(c.time, t) })
	switch {
	case i == len(cs):
		return i - 1
	case i > 0 && t-cs[i-1].time <= cs[i].time-t:
		return i - 1
	}
	return i
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mementoLinks is the Link field value of a TimeGate answer (timegate false) or of a memento
// (timegate true): the original resource, the TimeGate, the TimeMap (with the datetimes of its
// first and last mementos, from and until), and the mementos first,
// prev, the selected one, next and last, the relations of one memento combined.
func mementoLinks(base, orig string, rel []*capture, sel int, timegate bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<%s>; rel="original"`, orig)
	if timegate {
		fmt.Fprintf(&b, `, <%s%s%s>; rel="timegate"`, base, timegatePrefix, orig)
	}
	fmt.Fprintf(&b, `, <%s%s%s>; rel="timemap"; type="%s"`, base, timemapLinkPrefix, orig, linkFormat)
	last := len(rel) - 1
	if last >= 0 { // the TimeMap's span, as RFC 7089's examples give it
		fmt.Fprintf(&b, `; from="%s"; until="%s"`, httpDate(rel[0].time), httpDate(rel[last].time))
	}
	idx := []int{0, sel - 1, sel, sel + 1, last}
	slices.Sort(idx)
	for _, i := range slices.Compact(idx) {
		if i < 0 || i > last {
			continue
		}
		var words []string
		if i == 0 {
			words = append(words, "first")
		}
		if i == sel-1 {
			words = append(words, "prev")
		}
		if i == sel+1 {
			words = append(words, "next")
		}
		if i == last {
			words = append(words, "last")
		}
		words = append(words, "memento")
		fmt.Fprintf(&b, `, <%s%s>; rel="%s"; datetime="%s"`, base, recordPath(rel[i].url(), rel[i].time), strings.Join(words, " "), httpDate(rel[i].time))
	}
	return b.String()
}

// blocked answers 451 for a capture under embargo: Retry-After at its release time (or, once
// that has passed, at the next release pass state.json announces), and a Link to its tombstone
// in the captures API.
func (s *Server) blocked(w http.ResponseWriter, r *http.Request, c *capture, msg string) {
	retry := c.releaseAt
	if now := s.now(); embargo.Releasable(time.Unix(0, retry), now) {
		if next := s.ix.Load().state.NextRelease; next != nil && !embargo.Releasable(*next, now) {
			retry = next.UnixNano()
		}
	}
	h := w.Header()
	h.Set("Retry-After", httpDate(retry))
	h.Set("Link", fmt.Sprintf(`<%s/api/v1/captures?url=%s>; rel="blocked-by"`, baseURL(r), url.QueryEscape(c.url())))
	writeJSON(w, statusUnavailable, apiError{Error: msg, ReleaseAt: formatTime(c.releaseAt)})
}

// mementos reads the captures of the URL a TimeGate or TimeMap names and answers when it has no
// memento: 400, 404 (never made public) or 451 (only tombstones). ok is false when it answered.
func (s *Server) mementos(w http.ResponseWriter, r *http.Request, prefix string) (raw string, cs []capture, rel []*capture, ok bool) {
	raw, key, err := mementoTarget(r, prefix)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return "", nil, nil, false
	}
	cs, err = s.ix.Load().exact(key)
	if err != nil {
		s.indexFailed(w, err)
		return "", nil, nil, false
	}
	if len(cs) == 0 {
		writeError(w, http.StatusNotFound, fmt.Sprintf("%s has never been made public by this archive; it has no mementos", raw))
		return "", nil, nil, false
	}
	if rel = releasedAsc(cs); len(rel) == 0 {
		first := &cs[0]
		for i := range cs {
			if cs[i].releaseAt < first.releaseAt {
				first = &cs[i]
			}
		}
		s.blocked(w, r, first, fmt.Sprintf("every capture of %s is under embargo; the first is released at %s, and only tombstones are public until then",
			cs[0].url(), formatTime(first.releaseAt)))
		return "", nil, nil, false
	}
	return raw, cs, rel, true
}

// handleTimegate answers GET /timegate/URL: 302 to the memento closest to Accept-Datetime
// (RFC 1123; the newest without it).
func (s *Server) handleTimegate(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Vary", "accept-datetime")
	var want time.Time
	if ad := r.Header.Get("Accept-Datetime"); ad != "" {
		t, err := http.ParseTime(ad)
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Accept-Datetime %q is not an HTTP-date such as Thu, 31 May 2007 20:35:00 GMT", trunc(ad, 80)))
			return
		}
		want = t
	}
	_, cs, rel, ok := s.mementos(w, r, timegatePrefix)
	if !ok {
		return
	}
	sel := len(rel) - 1
	if !want.IsZero() {
		sel = closestIndex(rel, want.UnixNano())
	}
	base := baseURL(r)
	h := w.Header()
	h.Set("Link", mementoLinks(base, cs[0].url(), rel, sel, false))
	h.Set("Location", base+recordPath(rel[sel].url(), rel[sel].time))
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusFound)
}

// timemapJSON is the JSON TimeMap, in the form Memento aggregators answer.
type timemapJSON struct {
	OriginalURI string            `json:"original_uri"`
	TimegateURI string            `json:"timegate_uri"`
	TimemapURI  map[string]string `json:"timemap_uri"`
	Mementos    struct {
		First mementoJSON   `json:"first"`
		Last  mementoJSON   `json:"last"`
		List  []mementoJSON `json:"list"`
	} `json:"mementos"`
}

type mementoJSON struct {
	Datetime string `json:"datetime"`
	URI      string `json:"uri"`
}

// handleTimemap answers GET /timemap/link/URL (application/link-format) and
// GET /timemap/json/URL: every memento of URL, oldest first.
func (s *Server) handleTimemap(w http.ResponseWriter, r *http.Request) {
	prefix := timemapLinkPrefix
	switch {
	case strings.HasPrefix(r.URL.Path, timemapLinkPrefix):
	case strings.HasPrefix(r.URL.Path, timemapJSONPrefix):
		prefix = timemapJSONPrefix
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such TimeMap %s; ask for %shttps://example.com/ or %shttps://example.com/", r.URL.Path, timemapLinkPrefix, timemapJSONPrefix))
		return
	}
	_, cs, rel, ok := s.mementos(w, r, prefix)
	if !ok {
		return
	}
	base, orig := baseURL(r), cs[0].url()
	if prefix == timemapJSONPrefix {
		var tm timemapJSON
		tm.OriginalURI, tm.TimegateURI = orig, base+timegatePrefix+orig
		tm.TimemapURI = map[string]string{"link_format": base + timemapLinkPrefix + orig, "json_format": base + timemapJSONPrefix + orig}
		for _, c := range rel {
			tm.Mementos.List = append(tm.Mementos.List, mementoJSON{time.Unix(0, c.time).UTC().Format(time.RFC3339), base + recordPath(c.url(), c.time)})
		}
		tm.Mementos.First, tm.Mementos.Last = tm.Mementos.List[0], tm.Mementos.List[len(rel)-1]
		writeJSON(w, http.StatusOK, tm)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<%s>; rel=\"original\",\n<%s%s%s>; rel=\"self\"; type=\"%s\"; from=\"%s\"; until=\"%s\",\n<%s%s%s>; rel=\"timegate\"",
		orig, base, timemapLinkPrefix, orig, linkFormat, httpDate(rel[0].time), httpDate(rel[len(rel)-1].time), base, timegatePrefix, orig)
	for i, c := range rel {
		word := ""
		switch {
		case len(rel) == 1:
			word = "first last "
		case i == 0:
			word = "first "
		case i == len(rel)-1:
			word = "last "
		}
		fmt.Fprintf(&b, ",\n<%s%s>; rel=\"%smemento\"; datetime=\"%s\"", base, recordPath(c.url(), c.time), word, httpDate(c.time))
	}
	b.WriteString("\n")
	w.Header().Set("Content-Type", linkFormat)
	w.Header().Set("Content-Length", fmt.Sprint(b.Len()))
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(b.String()))
}

// recordLinks sets the Link field of a record answer: c is a released capture of cs (one key's,
// newest first).
func recordLinks(w http.ResponseWriter, r *http.Request, cs []capture, c *capture) {
	rel := releasedAsc(cs)
	sel := slices.Index(rel, c)
	if sel < 0 {
		return
	}
	w.Header().Set("Link", mementoLinks(baseURL(r), cs[0].url(), rel, sel, true))
}

// redirectClosest answers a record request whose timestamp matches no capture: 302 to the
// released capture closest to it (as pywb does), or 451 when every capture is under embargo.
func (s *Server) redirectClosest(w http.ResponseWriter, r *http.Request, q query, cs []capture, timestamp string) {
	t, err := time.Parse(public.Timestamp14, timestamp)
	if err != nil {
		t, err = time.Parse(time.RFC3339Nano, timestamp)
	}
	if err != nil { // pick accepted it: cannot happen
		writeError(w, http.StatusBadRequest, fmt.Sprintf("timestamp %q is neither 14 digits nor RFC 3339", timestamp))
		return
	}
	rel := releasedAsc(cs)
	if len(rel) == 0 {
		all := make([]*capture, len(cs))
		for i := range cs {
			all[len(cs)-1-i] = &cs[i]
		}
		c := all[closestIndex(all, t.UnixNano())]
		s.blocked(w, r, c, fmt.Sprintf("%s has no capture at %s, and the closest is under embargo until %s; only its tombstone is public",
			q.raw, timestamp, formatTime(c.releaseAt)))
		return
	}
	c := rel[closestIndex(rel, t.UnixNano())]
	loc := recordPath(q.raw, c.time)
	if f := r.URL.Query().Get("format"); f != "" {
		loc += "&format=" + url.QueryEscape(f)
	}
	w.Header().Set("Location", loc)
	writeJSON(w, http.StatusFound, map[string]string{"location": loc, "memento_datetime": httpDate(c.time)})
}
