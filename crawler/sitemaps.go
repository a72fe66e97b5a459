package crawler

import (
	"net/http"
	"net/url"

	"github.com/archivectl/archivectl/crawler/extract"
	"github.com/archivectl/archivectl/crawler/robots"
)

// Bounds of sitemap discovery: Sitemap lines taken from one robots.txt, and sitemap files
// queued by one crawl run.
const (
	maxRobotsSitemaps = 100
	maxSitemapFiles   = 50000
)

// sitemapsOf returns, the first time a page of origin o is visited in this run, the sitemaps
// to read for it: its robots.txt's Sitemap lines (on any origin: robots.txt may name a sitemap
// kept elsewhere) and, in SitemapsAll mode (the default), its /sitemap.xml. Only new ones are
// returned. Each is then fetched as any URL of its origin: robots.txt first, only when it allows
// the URL, with the origin's delay.
func (c *Crawl) sitemapsOf(o *originState, r *robots.File) []item {
	if o.sitemaps || c.cfg.Sitemaps == SitemapsOff {
		return nil
	}
	o.sitemaps = true
	base, err := url.Parse(o.name + "/")
	if err != nil {
		return nil
	}
	var raws []string
	if r.Policy != nil {
		raws = r.Policy.Sitemaps()
	}
	if len(raws) > maxRobotsSitemaps {
		c.log.Warn("robots.txt names more sitemaps than the limit: the rest are not read", "origin", o.name, "limit", maxRobotsSitemaps, "named", len(raws))
		raws = raws[:maxRobotsSitemaps]
	}
	if c.cfg.Sitemaps == SitemapsAll {
		// Only where robots.txt allows it (checked again when it is fetched): a guess that is
		// disallowed is not worth a line in the frontier nor a count in the summary.
		if t, err := base.Parse(defaultSitemap); err == nil && r.Evaluate(c.cfg.Agent, t).Allowed {
			raws = append(raws, defaultSitemap)
		} else {
			c.log.Debug("/sitemap.xml not read: robots.txt does not allow it", "origin", o.name)
		}
	}
	var items []item
	for _, raw := range raws {
		t, err := base.Parse(raw)
		if err != nil {
			c.log.Info("robots.txt Sitemap line is not a URL: ignored", "origin", o.name, "sitemap", raw)
			continue
		}
		if t, ok := extract.Canonical(t); ok && !c.scope.excluded(t) {
			items = append(items, item{URL: t.String(), Kind: kindSitemap})
		} else if !ok {
			c.log.Info("robots.txt Sitemap line is not an http(s) URL: ignored", "origin", o.name, "sitemap", raw)
		}
	}
	return c.sitemapBudget(c.owned(c.fr.claim(c.admit(o.name+"/robots.txt", items))))
}

// defaultSitemap is the path of the sitemap SitemapsAll reads on every origin in the scope.
const defaultSitemap = "/sitemap.xml"

// noDefaultSitemap reports whether x is the answer of an origin that has no /sitemap.xml: anything
// but 200 there is not archived (most origins have none, and their 404 is no evidence worth
// keeping); a redirect is still followed.
func noDefaultSitemap(u *url.URL, it item, x *exchange) bool {
	return it.Kind == kindSitemap && x.Status != http.StatusOK && u.Path == defaultSitemap && u.RawQuery == ""
}

// sitemapBudget takes new items found through sitemaps: it drops the sitemap files that do not
// fit in the run's bound of maxSitemapFiles, and counts the pages.
func (c *Crawl) sitemapBudget(items []item) []item {
	out, dropped, listed := items[:0], 0, 0
	for _, it := range items {
		switch {
		case it.Kind != kindSitemap:
			listed++
			out = append(out, it)
		case c.sitemapFiles.Add(1) > maxSitemapFiles:
			dropped++
		default:
			out = append(out, it)
		}
	}
	if dropped > 0 {
		c.log.Warn("more sitemap files than the limit: the rest are not read", "limit", maxSitemapFiles, "dropped", dropped)
	}
	if listed > 0 {
		c.stats.add(func(s *Summary) { s.SitemapURLs += listed })
	}
	return out
}

// sitemapItems reads a fetched sitemap: the pages it lists that are in the scope (one level
// below the sitemap, with their lastmod) or, for an index, the sitemaps it lists on the same
// origin or in the scope, up to maxSitemapIndexes indexes deep. Whatever bounds the reading
// (see extract.ReadSitemap) is logged; nothing in a sitemap stops the crawl.
func (c *Crawl) sitemapItems(u *url.URL, it item, x *exchange) []item {
	r, ok := extract.DecodedUpTo(x.Header, x.Body, extract.MaxSitemapBytes+1)
	if !ok {
		c.log.Info("sitemap in an encoding the crawler does not decode: not read", "url", it.URL, "content_encoding", x.Header.Values("Content-Encoding"))
		return nil
	}
	sm := extract.ReadSitemap(r)
	if sm.Cut != "" {
		c.log.Warn("sitemap read in part", "url", it.URL, "reason", sm.Cut, "entries", len(sm.Entries))
	}
	if sm.Skipped > 0 {
		c.log.Info("sitemap entries without a usable URL skipped", "url", it.URL, "skipped", sm.Skipped)
	}
	if sm.Index && it.Hops >= maxSitemapIndexes {
		c.log.Warn("sitemap index nested too deep: its sitemaps are not read", "url", it.URL, "depth", it.Hops+1)
		return nil
	}
	deeper := c.cfg.MaxDepth == 0 || it.Depth < c.cfg.MaxDepth
	var items []item
	bad := 0
	for _, e := range sm.Entries {
		t, err := u.Parse(e.Loc)
		if err != nil {
			bad++
			continue
		}
		t, ok := extract.Canonical(t)
		switch {
		case !ok:
			bad++
		case sm.Index && (origin(t) == origin(u) || c.inScope(t)) && !c.scope.excluded(t):
			items = append(items, item{URL: t.String(), Depth: it.Depth, Kind: kindSitemap, Hops: it.Hops + 1})
		case !sm.Index && deeper && c.inScope(t):
			items = append(items, item{URL: t.String(), Depth: it.Depth + 1, Via: it.URL, Lastmod: e.Lastmod})
		}
	}
	if bad > 0 {
		c.log.Info("sitemap entries that are not http(s) URLs skipped", "url", it.URL, "skipped", bad)
	}
	return items
}
