package crawler

import (
	"time"

	"github.com/archivectl/archivectl/crawler/browser"
	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/store"
)

// snapshots seals what the browser kept of a rendered page (Config.Browser.Snapshot): its DOM
// and its screenshot, as resource records taken at the render's end (at), derived from page.
// They show what every capture served to the browser holds, so they are embargoed for the
// longest period of the page and of those captures (longest), counted from at, after every one
// of them was captured: never public before any capture whose content they show. The store
// also withholds them until the page's release time (requisite_of_id), so they have no
// tombstone of their own. They carry the page's usage preferences.
func (c *Crawl) snapshots(page store.Entry, p browser.Page, at time.Time, longest embargo.Period) {
	var caps []store.Capture
	for _, s := range []struct {
		kind, ctype string
		body        []byte
	}{{store.ResourceDOM, "text/html; charset=utf-8", p.DOM}, {store.ResourceView, "image/png", p.View}} {
		if s.body == nil {
			continue
		}
		caps = append(caps, store.Capture{
			URL: store.ResourceURI(s.kind, page.URL), Time: at, Response: s.body, Resource: s.ctype,
			Period:      max(page.Period, longest),
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
