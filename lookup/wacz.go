package lookup

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/export"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// Bounds of a page's package: the outlinks of the page (and of its stylesheets) looked up in the
// index, the captures packed with it and their records' bytes, and how deep stylesheets that
// embed others are followed.
const (
	maxPageLinks = 10000
	maxPageNeeds = 2000
	maxCSSDepth  = 3
	maxPageBytes = 1 << 30
)

// pageSet is what the package of one released page holds and lacks: the page, the released
// captures its replay needs, and the requisites the public side holds only as tombstones.
type pageSet struct {
	page      export.Capture
	needs     []export.Capture
	embargoed int   // requisites under embargo: tombstones only
	until     int64 // the latest release time among them, Unix nanoseconds
}

// pageSet finds what the package of the released capture c of key needs, at a cost of the page's
// records and outlinks, never of the archive: the page's metadata record (right after its
// response in its shard) lists the URLs its payload refers to; each is looked up in the public
// index and its capture nearest the page's in time taken, unless that is an HTML page (a linked
// page, which has a package of its own): a released one is packed, with the original of a
// revisit and, for a stylesheet, what it refers to in turn (nearest the stylesheet's capture,
// which the crawler fetched them after); a tombstone counts as a resource of
// the page under embargo. The crawler fetches what a page embeds either as a page of the crawl's
// scope or as a requisite (requisite_of, then only out of scope), and a tombstone does not say
// which (docs/rules.md#d27), so the test is the resource's type, not how it was fetched: a linked
// file that is not HTML (a PDF) is packed too, and replays. A revisit page gets its original.
func (s *Server) pageSet(ctx context.Context, ix *index, key string, c *capture) (*pageSet, error) {
	lines, err := ix.lines(key)
	if err != nil {
		return nil, err
	}
	var page *public.Line
	for i := range lines {
		l := &lines[i]
		if l.State == public.StateReleased && l.Offset == c.offset && public.PathOf(l.Filename) == c.file {
			page = l
			break
		}
	}
	if page == nil {
		return nil, fmt.Errorf("%w: the capture of %s is not in the index any more", errIndexRead, c.url())
	}
	pc, err := export.NewCapture(*page)
	if err != nil {
		return nil, err
	}
	ps := &pageSet{page: pc}
	seen := map[string]bool{pc.ID: true}
	withOriginal := func(c export.Capture, ls []public.Line) error { // c, and the original of a revisit
		if !seen[c.ID] {
			seen[c.ID] = true
			ps.needs = append(ps.needs, c)
		}
		if !c.Revisit {
			return nil
		}
		for i := range ls {
			if ls[i].ID == c.RefersTo && ls[i].State == public.StateReleased && !seen[ls[i].ID] {
				orig, err := export.NewCapture(ls[i])
				if err != nil {
					return err
				}
				seen[orig.ID] = true
				ps.needs = append(ps.needs, orig)
			}
		}
		return nil
	}
	if err := withOriginal(pc, lines); err != nil { // the page is seen: only a revisit's original is added
		return nil, err
	}
	facts, err := export.ReadFacts(s.fsys, &pc)
	if err != nil { // the page alone still replays, unstyled
		if !errors.Is(err, export.ErrNoFacts) {
			s.log.Warn("the facts of a page are not readable: its package holds the page alone", "url", pc.URL, "err", err)
		}
		return ps, nil
	}
	looked := map[string]bool{c.url(): true}
	type doc struct { // a document whose outlinks are looked up
		links []string
		at    int64 // its capture time: its resources are those captured nearest it
		depth int
	}
	queue := []doc{{facts.Outlinks, c.time, 0}}
	var packed int64 // bytes of the records packed with the page
	for len(queue) > 0 && len(looked) <= maxPageLinks && len(ps.needs) < maxPageNeeds {
		d := queue[0]
		queue = queue[1:]
		for _, u := range d.links {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if looked[u] || len(looked) > maxPageLinks || len(ps.needs) >= maxPageNeeds {
				continue
			}
			looked[u] = true
			k, err := surt.Key(u)
			if err != nil {
				continue
			}
			ls, err := ix.lines(k)
			if err != nil {
				return nil, err
			}
			near := nearest(ls, d.at)
			switch {
			case near == nil || export.IsHTML(near.Mime):
			case near.State != public.StateReleased:
				ps.embargoed++
				if t, err := time.Parse(time.RFC3339Nano, near.ReleaseAt); err == nil && t.UnixNano() > ps.until {
					ps.until = t.UnixNano()
				}
			case packed+near.Length > maxPageBytes:
			default:
				rc, err := export.NewCapture(*near)
				if err != nil {
					continue
				}
				packed += near.Length
				if err := withOriginal(rc, ls); err != nil {
					return nil, err
				}
				if !strings.HasPrefix(rc.Mime, "text/css") || d.depth >= maxCSSDepth {
					continue
				}
				if f, err := export.ReadFacts(s.fsys, &rc); err == nil && len(f.Outlinks) > 0 {
					queue = append(queue, doc{f.Outlinks, rc.Captured.UnixNano(), d.depth + 1}) // what the stylesheet embeds
				}
			}
		}
	}
	return ps, nil
}

// nearest is the capture of lines closest in time to t (Unix nanoseconds), released before a
// tombstone at the same distance; nil when there is none.
func nearest(lines []public.Line, t int64) *public.Line {
	var best *public.Line
	var bestD int64
	for i := range lines {
		lt, err := time.Parse(time.RFC3339Nano, lines[i].Time)
		if err != nil {
			continue
		}
		d := lt.UnixNano() - t
		if d < 0 {
			d = -d
		}
		if best == nil || d < bestD || d == bestD && lines[i].State == public.StateReleased && best.State != public.StateReleased {
			best, bestD = &lines[i], d
		}
	}
	return best
}

// lines returns the captures of key as public CDXJ lines, as pubindex.Merge makes them (one per
// capture: its released line when it has one).
func (ix *index) lines(key string) ([]public.Line, error) {
	if ix.set == nil {
		return nil, nil
	}
	var out []public.Line
	err := ix.set.Captures(key, func(cs []pubindex.Capture) error {
		for i := range cs {
			l, err := cs[i].Raw.Line()
			if err != nil {
				continue
			}
			out = append(out, l)
		}
		return nil
	})
	return out, err
}

// pageCache keeps the last packages laid out, so that the range requests a replay makes of one
// package (its central directory, datapackage.json, index, then each record) lay it out once.
// Entries are keyed by index generation and record location, so a reload never serves a stale one.
type pageCache struct {
	mu    sync.Mutex
	order []string
	items map[string]*pageEntry
}

// pageEntry is one page's set and, once asked for, its package.
type pageEntry struct {
	once sync.Once
	set  *pageSet
	err  error
	pkg  *export.Package
	perr error
	pmu  sync.Mutex
}

// maxPageCache is how many pages' sets and packages the cache keeps: a package holds its own
// bytes (zip headers, index, pages) and the locations of its records, never their payloads.
const maxPageCache = 64

// entry returns the cache entry of capture c, made and filled by fill on first use.
func (pc *pageCache) entry(gen int64, c *capture, fill func(*pageEntry)) *pageEntry {
	k := pageKey(gen, c)
	pc.mu.Lock()
	e, ok := pc.items[k]
	if !ok {
		if pc.items == nil {
			pc.items = map[string]*pageEntry{}
		}
		if len(pc.order) >= maxPageCache {
			delete(pc.items, pc.order[0])
			pc.order = pc.order[1:]
		}
		e = &pageEntry{}
		pc.items[k] = e
		pc.order = append(pc.order, k)
	}
	pc.mu.Unlock()
	e.once.Do(func() { fill(e) })
	return e
}

// drop forgets the entry of capture c (one that failed: the next request tries again).
func (pc *pageCache) drop(gen int64, c *capture) {
	k := pageKey(gen, c)
	pc.mu.Lock()
	defer pc.mu.Unlock()
	delete(pc.items, k)
	pc.order = slices.DeleteFunc(pc.order, func(o string) bool { return o == k })
}

// pageKey is the cache key of capture c in index generation gen.
func pageKey(gen int64, c *capture) string {
	return strconv.FormatInt(gen, 10) + " " + c.file + " " + strconv.FormatInt(c.offset, 10)
}

// pageSetOf is the cached pageSet of the released capture c.
func (s *Server) pageSetOf(ctx context.Context, ix *index, key string, c *capture) (*pageEntry, error) {
	e := s.pages.entry(ix.generation, c, func(e *pageEntry) {
		e.set, e.err = s.pageSet(context.WithoutCancel(ctx), ix, key, c)
	})
	if e.err != nil {
		s.pages.drop(ix.generation, c)
	}
	return e, e.err
}

// handleWACZ answers GET /api/v1/wacz?url=URL[&timestamp=T]: the WACZ package of one released
// capture (the newest released one without timestamp) with the released captures its replay
// needs, built from the public side on demand (export.PageWACZ), for ReplayWeb.page. It answers
// HEAD and Range requests (a replay reads the package by ranges); its bytes stay the same until
// the public side changes (ETag). An embargoed capture answers 451, as a record does.
func (s *Server) handleWACZ(w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ix := s.ix.Load()
	cs, err := ix.exact(q.key)
	if err != nil {
		s.indexFailed(w, err)
		return
	}
	ts := r.URL.Query().Get("timestamp")
	c, err := pick(cs, ts)
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
		return
	case len(cs) == 0:
		writeError(w, http.StatusNotFound, fmt.Sprintf("%s has never been made public by this archive", q.raw))
		return
	case c == nil:
		writeError(w, http.StatusNotFound, fmt.Sprintf("%s has no capture at %s; its captures are listed by /api/v1/captures?url=%s", q.raw, ts, url.QueryEscape(q.raw)))
		return
	case !c.released:
		s.blocked(w, r, c, fmt.Sprintf("this capture of %s is under embargo until %s; only its tombstone is public", c.url(), formatTime(c.releaseAt)))
		return
	}
	e, err := s.pageSetOf(r.Context(), ix, q.key, c)
	if err == nil {
		e.pmu.Lock()
		if e.pkg == nil && e.perr == nil {
			e.pkg, e.perr = export.PageWACZ(context.WithoutCancel(r.Context()), s.fsys, e.set.page, e.set.needs, e.set.embargoed,
				export.WACZOptions{Created: packageTime(ix, c), Software: "archivectl lookup"})
		}
		err = e.perr
		e.pmu.Unlock()
		if err != nil {
			s.pages.drop(ix.generation, c)
		}
	}
	if err != nil {
		s.log.Error("page package not built", "url", c.url(), "file", c.file, "offset", c.offset, "err", err)
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("the package of %s cannot be built (%v); run archivectl verify", c.url(), err))
		return
	}
	stamp := c.stamp()
	h := w.Header()
	h.Set("Content-Type", "application/wacz")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.wacz"`, safeName(c.url()), stamp))
	h.Set("ETag", fmt.Sprintf(`"wacz-%d-%s-%d-%d"`, ix.generation, stamp, c.offset, e.pkg.Size()))
	h.Set("X-Archive-Embargoed-Requisites", strconv.Itoa(e.set.embargoed))
	rd := e.pkg.Open()
	defer rd.Close()
	http.ServeContent(newDeadlineWriter(w, s.opt.WriteStall, time.Now()), r, "", packageTime(ix, c), rd)
}

// packageTime is a page package's creation time: the last pass's (what it packs changes only with
// a pass), else the capture's; to the second, so that its bytes are the same at every request.
func packageTime(ix *index, c *capture) time.Time {
	if t := ix.state.LastPass; !t.IsZero() {
		return t.UTC().Truncate(time.Second)
	}
	return time.Unix(0, c.time).UTC().Truncate(time.Second)
}

// safeName is a URL as a file name: its letters and digits, the rest as "-", at most 80 bytes.
func safeName(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	b := []byte(u)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.') {
			b[i] = '-'
		}
	}
	return string(b[:min(len(b), 80)])
}

// waczLink is the path and query of the package of the released capture c.
func waczLink(c *capture) string {
	return "/api/v1/wacz?url=" + url.QueryEscape(c.url()) + "&timestamp=" + c.stamp()
}

// The ReplayWeb.page instance "Open as page" opens by default, and the Options.ReplayURL that
// turns the links off.
const (
	DefaultReplayURL = "https://replayweb.page/"
	ReplayOff        = "off"
)

// maxReplayNotes bounds the captures of one card page whose requisites under embargo are looked
// for (the newest): each needs its page's set found (cached), so a URL captured a thousand times
// costs no more. Every released page gets its "Open as page" link.
const maxReplayNotes = 10

// CheckReplayURL checks Options.ReplayURL: empty, "off", or an absolute http(s) URL.
func CheckReplayURL(s string) error {
	if s == "" || s == ReplayOff {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
		return errors.New("not an absolute http(s) URL of a ReplayWeb.page instance, nor " + ReplayOff)
	}
	return nil
}

// replayLinks gives the card of the released page c its "Open as page" link: the ReplayWeb.page
// instance with the absolute URL of the page's package as its source, opened at the page
// (?source=…#view=replay&url=…&ts=…, as ReplayWeb.page's own links are made); and says when
// requisites of the page are still under embargo (when note is set).
func (s *Server) replayLinks(r *http.Request, ix *index, key string, c *capture, p *pageCapture, note bool) {
	base := s.opt.ReplayURL
	if base == "" {
		base = DefaultReplayURL
	}
	ts := c.stamp()
	p.ReplayLink = base + "?source=" + url.QueryEscape(baseURL(r)+waczLink(c)) +
		"#view=replay&url=" + url.QueryEscape(c.url()) + "&ts=" + ts
	if !note {
		return
	}
	e, err := s.pageSetOf(r.Context(), ix, key, c)
	if err != nil {
		s.log.Warn("requisites of a page not found", "url", c.url(), "err", err)
		return
	}
	if n := e.set.embargoed; n > 0 {
		p.Withheld = plural(n, "resource") + " of this page " + map[bool]string{true: "is", false: "are"}[n == 1] + " still under embargo until"
		p.WithheldUntil, p.WithheldISO = humanTime(e.set.until), isoTime(e.set.until)
	}
}
