package lookup

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/public/pubindex"
)

// The release feeds (docs/formats.md#release-feeds): the most recent releases and the next ones,
// for the whole archive, one host or a URL prefix, as Atom (RFC 4287) and JSON Feed 1.1.
//
//	GET /feed/releases.atom, /feed/releases.json   the feedLimit captures released last (latest release time first)
//	GET /feed/upcoming.atom, /feed/upcoming.json   the feedLimit captures under embargo released next (soonest first)
//
// with ?host=HOST or ?prefix=URL. A feed holds what the public index holds, never the clock's
// view: a capture is released when a released line exists. An entry names a capture by its URL
// and times and links to its capture card and record; it never carries a body or a header field.
const (
	feedLimit = 100 // entries per feed at most
	// feedCacheMax bounds the feeds remembered for one index (whole archive, hosts, prefixes).
	feedCacheMax = 256
	// feedTag starts every feed and entry id: a tag URI (RFC 4151) naming the capture by its id,
	// so an entry keeps its id across requests, index reloads, servers and mirrors.
	feedTag = "tag:archivectl,2026:"
	// feedNS is the XML namespace of the Atom extension elements (release time, capture time, state).
	feedNS = feedTag + "feed"
)

// feedKind tells the two feeds apart.
type feedKind string

const (
	feedReleases feedKind = "releases"
	feedUpcoming feedKind = "upcoming"
)

// feedFilter selects the captures of a feed: all of them, one host's, or those under a prefix.
type feedFilter struct {
	param, value string // "host" or "prefix" and its value as given; "" for the whole archive
	m            matcher
}

// feedEntry is one capture a feed lists.
type feedEntry struct {
	id, url         string // capture id (WARC-Record-ID), URL
	time, releaseAt int64  // Unix nanoseconds
	key             string // SURT, to order entries released at the same instant
}

// errFeedFilter is the error of a bad ?host= or ?prefix=.
var errFeedFilter = errors.New("bad feed filter")

// parseFeedFilter reads ?host= or ?prefix= (at most one of them). A host selects every capture of
// that host (any path, any scheme, its port when given); a prefix selects what the lookup's prefix
// query selects (matchType=prefix).
func parseFeedFilter(r *http.Request) (feedFilter, error) {
	var f feedFilter
	if len(r.URL.RawQuery) > maxQuery {
		return f, fmt.Errorf("%w: the query string is longer than %d bytes", errFeedFilter, maxQuery)
	}
	v, err := queryValues(r.URL.RawQuery)
	if err != nil {
		return f, fmt.Errorf("%w: %w", errFeedFilter, err)
	}
	host, prefix := strings.TrimSpace(v.Get("host")), strings.TrimSpace(v.Get("prefix"))
	switch {
	case v.Has("host") && v.Has("prefix"):
		return f, fmt.Errorf("%w: give ?host= or ?prefix=, not both", errFeedFilter)
	case v.Has("host"):
		if host == "" || strings.ContainsAny(host, "/?#@ ") {
			return f, fmt.Errorf("%w: host %q is not a host name; give one like ?host=example.com", errFeedFilter, host)
		}
		q, err := parseQuery(&http.Request{URL: &url.URL{RawQuery: "url=" + url.QueryEscape("https://"+host+"/")}})
		if err != nil {
			return f, fmt.Errorf("%w: host %q: %w", errFeedFilter, host, err)
		}
		f.param, f.value, f.m = "host", strings.ToLower(host), matcher{from: q.key}
	case v.Has("prefix"):
		if prefix == "" {
			return f, fmt.Errorf("%w: the prefix is empty; give one like ?prefix=https://example.com/blog/", errFeedFilter)
		}
		q, err := parseQuery(&http.Request{URL: &url.URL{RawQuery: "matchType=prefix&url=" + url.QueryEscape(prefix)}})
		if err != nil {
			return f, fmt.Errorf("%w: prefix: %w", errFeedFilter, err)
		}
		f.param, f.value, f.m = "prefix", q.raw, q.matcher()
	}
	return f, nil
}

// query is the filter as a query string ("" or "?host=…"), the form the feed's own URL takes.
func (f feedFilter) query() string {
	if f.param == "" {
		return ""
	}
	return "?" + f.param + "=" + url.QueryEscape(f.value)
}

// collectFeed reads the captures of kind under f from the public index: the released captures
// with the latest release times, or the captures under embargo with the soonest, feedLimit at
// most. It reads every capture the filter selects (the whole index for the whole archive), so
// its result is kept for the index it was read from (Server.feed).
func (ix *index) collectFeed(kind feedKind, f feedFilter) ([]feedEntry, error) {
	if ix.set == nil {
		return nil, nil
	}
	order := func(a, b feedEntry) int {
		if kind == feedReleases {
			return cmp.Or(cmp.Compare(b.releaseAt, a.releaseAt), cmp.Compare(b.time, a.time), strings.Compare(a.key, b.key), strings.Compare(a.id, b.id))
		}
		return cmp.Or(cmp.Compare(a.releaseAt, b.releaseAt), cmp.Compare(a.time, b.time), strings.Compare(a.key, b.key), strings.Compare(a.id, b.id))
	}
	var out []feedEntry
	prune := func() {
		slices.SortFunc(out, order)
		out = slices.Clip(out[:min(len(out), feedLimit)])
	}
	from := []byte(f.m.from)
	var id []byte
	err := ix.set.Scan(f.m.from, func(key []byte, lines [][]byte) (bool, error) {
		if !bytes.HasPrefix(key, from) {
			return false, nil
		}
		if f.m.dir && !f.m.match(string(key)) {
			return true, nil
		}
		for _, c := range pubindex.Merge(lines) {
			if c.Released() != (kind == feedReleases) {
				continue
			}
			var err error
			if id, err = c.Block.AppendID(id[:0]); err != nil {
				continue // no id, no stable entry: the line is left out, as a bad line is
			}
			e := feedEntry{id: string(id), url: string(c.Block.URL), time: c.Time, releaseAt: c.ReleaseAt, key: string(key)}
			if len(out) == feedLimit && order(e, out[len(out)-1]) >= 0 {
				continue // after the last one kept: not in the feed
			}
			out = append(out, e)
			if len(out) >= 4*feedLimit {
				prune()
			}
		}
		return true, nil
	})
	prune()
	return out, err
}

// feedCache keeps the feeds read from one index: a feed is read once per index generation
// (and state.json), however many ask for it.
type feedCache struct {
	mu    sync.Mutex
	ix    *index
	feeds map[string]*feedResult
}

// feedResult is one feed read once.
type feedResult struct {
	once    sync.Once
	entries []feedEntry
	err     error
}

// feed returns the entries of kind under f for ix, read once per index.
func (s *Server) feed(ix *index, kind feedKind, f feedFilter) ([]feedEntry, error) {
	c := &s.feeds
	key := string(kind) + " " + f.m.from + " " + fmt.Sprint(f.m.dir)
	c.mu.Lock()
	if c.ix != ix || len(c.feeds) >= feedCacheMax {
		c.ix, c.feeds = ix, map[string]*feedResult{}
	}
	res := c.feeds[key]
	if res == nil {
		res = &feedResult{}
		c.feeds[key] = res
	}
	c.mu.Unlock()
	res.once.Do(func() { res.entries, res.err = ix.collectFeed(kind, f) })
	return res.entries, res.err
}

// registerFeeds adds the feed routes to mux.
func (s *Server) registerFeeds(mux *http.ServeMux) {
	for _, kind := range []feedKind{feedReleases, feedUpcoming} {
		mux.Handle("GET /feed/"+string(kind)+".atom", s.metrics.route("feed", s.feedHandler(kind, "atom")))
		mux.Handle("GET /feed/"+string(kind)+".json", s.metrics.route("feed", s.feedHandler(kind, "json")))
	}
}

// feedHandler answers GET /feed/KIND.atom or .json. The answer has an ETag (a digest of the body)
// and a Last-Modified (the last pass, state.json's last_pass): a conditional GET is answered
// 304 while the feed is unchanged.
func (s *Server) feedHandler(kind feedKind, format string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f, err := parseFeedFilter(r)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		ix := s.ix.Load()
		entries, err := s.feed(ix, kind, f)
		if err != nil {
			s.indexFailed(w, err)
			return
		}
		d := newFeedDoc(r, ix, kind, format, f, entries)
		var body []byte
		ctype := "application/atom+xml; charset=utf-8"
		if format == "atom" {
			body, err = d.atom()
		} else {
			ctype = "application/feed+json; charset=utf-8"
			body, err = d.json()
		}
		if err != nil {
			s.log.Error("feed not rendered", "feed", r.URL.Path, "err", err)
			writeError(w, http.StatusInternalServerError, "internal error: the feed cannot be rendered")
			return
		}
		sum := sha256.Sum256(body)
		h := w.Header()
		h.Set("Content-Type", ctype)
		h.Set("ETag", `"`+hex.EncodeToString(sum[:16])+`"`)
		h.Set("Cache-Control", "public, no-cache") // always revalidated: a pass may change it at any time
		http.ServeContent(w, r, "", ix.state.LastPass, bytes.NewReader(body))
	}
}

// feedDoc is one feed as it is written, in either format.
type feedDoc struct {
	kind       feedKind
	id         string // the feed's id (Atom) and the key of its URL
	title      string
	about      string // the subtitle / description
	self, page string // the feed's own URL and the lookup page it follows
	base       string // scheme and host of the request: entry links are absolute
	updated    time.Time
	generation int64
	entries    []feedEntry
}

// newFeedDoc describes the feed of kind under f over entries, for the request r.
func newFeedDoc(r *http.Request, ix *index, kind feedKind, format string, f feedFilter, entries []feedEntry) feedDoc {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	d := feedDoc{kind: kind, base: scheme + "://" + r.Host, updated: ix.state.LastPass, generation: ix.generation, entries: entries}
	d.self = d.base + "/feed/" + string(kind) + "." + format + f.query()
	d.id = feedTag + "feed/" + string(kind) + f.query()
	scope, page := "", "/" // how the title names the captures selected, and the page that shows them
	switch f.param {
	case "host":
		scope = " of " + f.value
		page = "/?matchType=prefix&url=" + url.QueryEscape("https://"+f.value+"/")
	case "prefix":
		scope = " under " + f.value
		page = "/?matchType=prefix&url=" + url.QueryEscape(f.value)
	}
	d.page = d.base + page
	if kind == feedReleases {
		d.title = "Recent releases" + scope
		d.about = fmt.Sprintf("The %d captures%s released last, latest release time first: each links to its capture card and its record.", feedLimit, scope)
	} else {
		d.title = "Upcoming releases" + scope
		d.about = fmt.Sprintf("The %d captures%s under embargo whose release comes next, soonest first: only their tombstones are public until then.", feedLimit, scope)
	}
	return d
}

// entryID is the stable id of one capture's entry in a feed of kind.
func entryID(kind feedKind, captureID string) string {
	id := strings.TrimSuffix(strings.TrimPrefix(captureID, "<"), ">")
	return feedTag + string(kind) + ":" + url.PathEscape(id)
}

// card is the lookup page's card of the capture's URL; record, its record.
func (d feedDoc) card(e feedEntry) string { return d.base + "/?url=" + url.QueryEscape(e.url) }
func (d feedDoc) record(e feedEntry) string {
	return d.base + recordPath(e.url, e.time)
}

// summary says what one entry is about, in one line of text.
func (d feedDoc) summary(e feedEntry) (title, text string) {
	captured, release := time.Unix(0, e.time).UTC().Format(time.DateTime+" UTC"), time.Unix(0, e.releaseAt).UTC().Format(time.DateTime+" UTC")
	if d.kind == feedReleases {
		return "Released: " + e.url, fmt.Sprintf("The capture of %s made %s was released %s. Capture card: %s · WARC record: %s", e.url, captured, release, d.card(e), d.record(e))
	}
	return "Upcoming: " + e.url + " (" + release + ")", fmt.Sprintf("The capture of %s made %s is under embargo until %s: only its tombstone is public until a release pass releases it. Capture card: %s · WARC record (once released): %s", e.url, captured, release, d.card(e), d.record(e))
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// The Atom document (RFC 4287), with three extension elements per entry in feedNS.
type (
	atomFeed struct {
		XMLName  xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
		ID       string      `xml:"id"`
		Title    string      `xml:"title"`
		Subtitle string      `xml:"subtitle"`
		Updated  string      `xml:"updated"`
		Author   atomPerson  `xml:"author"`
		Links    []atomLink  `xml:"link"`
		Entries  []atomEntry `xml:"entry"`
	}
	atomPerson struct {
		Name string `xml:"name"`
	}
	atomLink struct {
		Rel   string `xml:"rel,attr"`
		Type  string `xml:"type,attr,omitempty"`
		Title string `xml:"title,attr,omitempty"`
		Href  string `xml:"href,attr"`
	}
	atomEntry struct {
		ID        string     `xml:"id"`
		Title     string     `xml:"title"`
		Updated   string     `xml:"updated"`
		Published string     `xml:"published,omitempty"`
		Links     []atomLink `xml:"link"`
		Summary   string     `xml:"summary"`
		Ext       []atomExt  // release_at, captured, state in feedNS
	}
	// atomExt is one extension element: its name (in feedNS) and text.
	atomExt struct {
		XMLName xml.Name
		Text    string `xml:",chardata"`
	}
)

// ext is the extension element feedNS:name.
func ext(name, text string) atomExt {
	return atomExt{XMLName: xml.Name{Space: feedNS, Local: name}, Text: text}
}

// atom writes the feed as Atom. An entry's updated (and, once released, published) is its
// release time; the feed's updated is the last pass.
func (d feedDoc) atom() ([]byte, error) {
	updated := d.updated
	if updated.IsZero() {
		updated = time.Unix(0, 0) // no pass yet: nothing is listed
	}
	af := atomFeed{ID: d.id, Title: d.title, Subtitle: d.about, Updated: rfc3339(updated), Author: atomPerson{Name: "archivectl"},
		Links: []atomLink{{Rel: "self", Type: "application/atom+xml", Href: d.self}, {Rel: "alternate", Type: "text/html", Href: d.page}}}
	for _, e := range d.entries {
		title, text := d.summary(e)
		release := rfc3339(time.Unix(0, e.releaseAt))
		state := "embargoed"
		if d.kind == feedReleases {
			state = "released"
		}
		ae := atomEntry{ID: entryID(d.kind, e.id), Title: title, Updated: release, Summary: text,
			Ext: []atomExt{ext("release_at", release), ext("captured", rfc3339(time.Unix(0, e.time))), ext("state", state)},
			Links: []atomLink{{Rel: "alternate", Type: "text/html", Title: "capture card", Href: d.card(e)},
				{Rel: "related", Type: "application/warc", Title: "WARC record", Href: d.record(e)}}}
		if d.kind == feedReleases {
			ae.Published = release
		}
		af.Entries = append(af.Entries, ae)
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", " ")
	if err := enc.Encode(af); err != nil {
		return nil, fmt.Errorf("atom feed: %w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// The JSON Feed 1.1 document, with an _archivectl extension on the feed and on each item.
type (
	jsonFeed struct {
		Version     string       `json:"version"`
		Title       string       `json:"title"`
		HomePageURL string       `json:"home_page_url"`
		FeedURL     string       `json:"feed_url"`
		Description string       `json:"description"`
		Authors     []jsonAuthor `json:"authors"`
		Language    string       `json:"language"`
		Items       []jsonItem   `json:"items"`
		Ext         jsonFeedExt  `json:"_archivectl"`
	}
	jsonAuthor struct {
		Name string `json:"name"`
	}
	jsonFeedExt struct {
		ID         string `json:"id"`
		LastPass   string `json:"last_pass,omitempty"` // state.json's last_pass
		Generation int64  `json:"generation"`
		Limit      int    `json:"limit"`
	}
	jsonItem struct {
		ID            string      `json:"id"`
		URL           string      `json:"url"`          // the capture card
		ExternalURL   string      `json:"external_url"` // the record
		Title         string      `json:"title"`
		ContentText   string      `json:"content_text"`
		DatePublished string      `json:"date_published,omitempty"`
		DateModified  string      `json:"date_modified"`
		Ext           jsonItemExt `json:"_archivectl"`
	}
	jsonItemExt struct {
		CaptureID string `json:"capture_id"`
		URL       string `json:"url"`
		Captured  string `json:"captured"`
		ReleaseAt string `json:"release_at"`
		State     string `json:"state"`
		Record    string `json:"record"`
	}
)

// json writes the feed as JSON Feed 1.1; times as in the Atom feed.
func (d feedDoc) json() ([]byte, error) {
	jf := jsonFeed{Version: "https://jsonfeed.org/version/1.1", Title: d.title, HomePageURL: d.page, FeedURL: d.self, Description: d.about,
		Authors: []jsonAuthor{{Name: "archivectl"}}, Language: "en", Items: []jsonItem{},
		Ext: jsonFeedExt{ID: d.id, Generation: d.generation, Limit: feedLimit}}
	if !d.updated.IsZero() {
		jf.Ext.LastPass = rfc3339(d.updated)
	}
	for _, e := range d.entries {
		title, text := d.summary(e)
		release := rfc3339(time.Unix(0, e.releaseAt))
		it := jsonItem{ID: entryID(d.kind, e.id), URL: d.card(e), ExternalURL: d.record(e), Title: title, ContentText: text, DateModified: release,
			Ext: jsonItemExt{CaptureID: e.id, URL: e.url, Captured: rfc3339(time.Unix(0, e.time)), ReleaseAt: release, State: "embargoed", Record: d.record(e)}}
		if d.kind == feedReleases {
			it.DatePublished, it.Ext.State = release, "released"
		}
		jf.Items = append(jf.Items, it)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // URLs with & and capture ids with <…> as they are
	enc.SetIndent("", " ")
	if err := enc.Encode(jf); err != nil {
		return nil, fmt.Errorf("json feed: %w", err)
	}
	return b.Bytes(), nil
}
