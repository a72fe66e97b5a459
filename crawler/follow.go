package crawler

import (
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/archivectl/archivectl/crawler/extract"
)

// Bounds of page requisites: requisites kept per page or stylesheet (the rest are logged and
// dropped) and the longest chain from a page (page → stylesheet → @import → font is 3).
const (
	maxRequisites     = 1000
	maxRequisiteHops  = 3
	maxSitemapIndexes = 2 // sitemap index files followed from a robots.txt line or /sitemap.xml
)

// follow returns what the capture x of it leads to and was not seen yet: pages (links in the
// scope and depth, redirects, sitemap entries) and what x embeds (requisites outside them and
// embedded pages inside, queued once x is sealed, so that they carry its capture id), and the
// outlinks recorded with x. A URL x both links and embeds is one embedded reference
// (extract merges them), so it waits for x (docs/rules.md#d27).
func (c *Crawl) follow(u *url.URL, it item, x *exchange) (pages, reqs []item, outlinks []string) {
	if x.Status >= 200 && x.Status < 300 {
		switch {
		case it.Kind == kindSitemap:
			pages = c.sitemapItems(u, it, x)
		case it.Kind != kindRequisite && extract.IsHTML(x.Header, x.Body):
			refs := c.parse(u, it, x, "HTML", extract.HTML)
			outlinks = extract.URLs(refs)
			pages, reqs = c.sort(it, x.Time, refs)
		case extract.IsCSS(x.Header, u) && (it.Kind != kindRequisite || it.Hops < maxRequisiteHops):
			refs := c.parse(u, it, x, "CSS", extract.CSS)
			outlinks = extract.URLs(refs)
			pages, reqs = c.sort(it, x.Time, refs)
		}
	}
	if next, ok := c.redirect(u, it, x); ok {
		pages = append(pages, next)
	}
	pages, reqs = c.owned(c.fr.claim(c.admit(it.URL, pages))), c.owned(c.fr.claim(c.admit(it.URL, reqs)))
	if it.Kind == kindSitemap {
		pages = c.sitemapBudget(pages)
	}
	return pages, reqs, outlinks
}

// parse decodes x's payload and extracts its references with read, logging what limits it.
func (c *Crawl) parse(u *url.URL, it item, x *exchange, what string, read func(*url.URL, io.Reader) ([]extract.Ref, int, error)) []extract.Ref {
	r, ok := extract.Decoded(x.Header, x.Body)
	if !ok {
		c.log.Info(what+" in an encoding the crawler does not decode: links not followed", "url", it.URL, "content_encoding", x.Header.Values("Content-Encoding"))
		return nil
	}
	cr := &countingReader{r: r}
	refs, dropped, err := read(u, cr)
	if dropped > 0 {
		c.log.Warn(what+" holds more links than the limit: the rest are not followed", "url", it.URL, "limit", extract.MaxLinks, "dropped", dropped)
		c.stats.add(func(s *Summary) { s.LinksDropped += dropped })
	}
	switch {
	case err != nil:
		c.log.Warn(what+" parsing stopped early: links taken from what was parsed", "url", it.URL, "parsed", cr.n, "err", err)
	case cr.n >= extract.MaxParseBytes:
		c.log.Warn(what+" larger than the parse limit once decoded: links taken from its start only", "url", it.URL, "limit", extract.MaxParseBytes)
	}
	if cr.binary() {
		c.log.Warn("labelled "+what+" but looks binary: parsed anyway", "url", it.URL)
	}
	return refs
}

// sort splits what a page or stylesheet refers to. A link in the scope and within MaxDepth
// is a page one level deeper. An embedded resource there is such a page too, embedded: it is
// crawled as a page (depth counted, its links followed when it is HTML, whatever NoRequisites
// says) but sealed as a requisite of it, so that it waits for it (docs/rules.md#d27); it is
// returned with the requisites. Another embedded resource is a requisite of it (unless
// NoRequisites or an exclude pattern forbids it), from any http(s) origin: one hop deep, a
// stylesheet's own references a hop further. What a requisite stylesheet refers to is a
// requisite too.
func (c *Crawl) sort(it item, at time.Time, refs []extract.Ref) (pages, reqs []item) {
	deeper := c.cfg.MaxDepth == 0 || it.Depth < c.cfg.MaxDepth
	n, dropped := 0, 0 // requisites kept and dropped (embedded pages aside)
	for _, r := range refs {
		lu, err := url.Parse(r.URL)
		if err != nil {
			continue
		}
		switch {
		case it.Kind == kindPage && deeper && c.inScope(lu) && r.Embed:
			reqs = append(reqs, item{URL: r.URL, Depth: it.Depth + 1, Via: it.URL, ViaTime: at, Embedded: true})
		case it.Kind == kindPage && deeper && c.inScope(lu):
			pages = append(pages, item{URL: r.URL, Depth: it.Depth + 1})
		case !r.Embed || c.cfg.NoRequisites || c.scope.excluded(lu):
		case n >= maxRequisites:
			dropped++
		default:
			n++
			hops := 1
			if it.Kind == kindRequisite {
				hops = it.Hops + 1
			}
			reqs = append(reqs, item{URL: r.URL, Depth: it.Depth, Kind: kindRequisite, Hops: hops, Via: it.URL, ViaTime: at})
		}
	}
	if dropped > 0 {
		c.log.Warn("more requisites than the limit: the rest are not fetched", "url", it.URL, "limit", maxRequisites, "dropped", dropped)
	}
	return pages, reqs
}

// redirect returns the item a 3xx response leads to: a page's target when it is in the scope
// (an embedded page's stays embedded by the same page), a requisite's or a sitemap's wherever
// it is (unless excluded), with the same provenance.
func (c *Crawl) redirect(u *url.URL, it item, x *exchange) (item, bool) {
	loc := x.Header.Get("Location")
	if x.Status < 300 || x.Status >= 400 || loc == "" {
		return item{}, false
	}
	t, err := u.Parse(loc)
	if err != nil {
		return item{}, false
	}
	t, ok := extract.Canonical(t)
	if !ok || it.Kind == kindPage && !c.inScope(t) || it.Kind != kindPage && c.scope.excluded(t) {
		return item{}, false
	}
	if it.Redirects >= maxRedirects {
		c.log.Warn("redirect chain too long: not followed", "url", it.URL, "location", loc, "redirects", it.Redirects)
		return item{}, false
	}
	next := it
	next.URL, next.Redirects = t.String(), it.Redirects+1
	return next, true
}

// countingReader counts the bytes read through it and keeps the first few for sniffing.
type countingReader struct {
	r    io.Reader
	n    int64
	head []byte
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if len(c.head) < 512 {
		c.head = append(c.head, p[:min(n, 512-len(c.head))]...)
	}
	return n, err
}

// binary reports whether the start of what was read sniffs as binary data, not text.
func (c *countingReader) binary() bool {
	return len(c.head) > 0 && http.DetectContentType(c.head) == "application/octet-stream"
}
