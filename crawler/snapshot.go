package crawler

import (
	"github.com/archivectl/archivectl/crawler/browser"
	"github.com/archivectl/archivectl/store"
)

// snapshots seals what the browser kept of a rendered page (Config.Browser.Snapshot): its DOM
// and its screenshot, as resource records of the page's capture time, derived from page. They
// carry the page's usage preferences and no embargo of their own: the store withholds them
// until the page's release time (requisite_of_id), so they are released with the page, never
// before it, and have no tombstone of their own.
func (c *Crawl) snapshots(page store.Entry, p browser.Page) {
	var caps []store.Capture
	for _, s := range []struct {
		kind, ctype string
		body        []byte
	}{{store.ResourceDOM, "text/html; charset=utf-8", p.DOM}, {store.ResourceView, "image/png", p.View}} {
		if s.body == nil {
			continue
		}
		caps = append(caps, store.Capture{
			URL: store.ResourceURI(s.kind, page.URL), Time: page.Time, Response: s.body, Resource: s.ctype,
			RequisiteOf: page.URL, RequisiteOfID: page.ID, LoadedBy: store.LoadedByBrowser,
			Usage: page.Usage, UsageHeader: page.UsageHeader, UsageRobots: page.UsageRobots,
		})
	}
	if len(caps) == 0 {
		return
	}
	c.sealer.submit(&sealJob{caps: caps, done: func(_ []store.Entry, err error) {
		if err != nil {
			c.sealFailed(page.URL, err)
			return
		}
		c.log.Debug("page snapshots sealed", "url", page.URL, "records", len(caps))
	}})
}
