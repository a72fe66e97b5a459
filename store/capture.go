package store

import (
	"errors"
	"time"

	"github.com/archivectl/archivectl/embargo"
)

// ErrNotRobotsTxt is Seal's error for a capture marked Robots whose URL is not an origin's
// /robots.txt: only those are exempt from embargo (docs/rules.md#d23).
var ErrNotRobotsTxt = errors.New("only an origin's /robots.txt may be sealed as robots.txt evidence")

// Capture is one HTTP exchange as fetched, with the policy facts that decided it; the crawler hands it to Seal.
type Capture struct {
	URL         string         // target URI as requested
	Time        time.Time      // when the request was sent (WARC-Date)
	IP          string         // the server's IP address (WARC-IP-Address)
	Request     []byte         // the raw HTTP request as sent
	Response    []byte         // the raw HTTP response: status line, header fields and payload as received
	Truncated   string         // WARC-Truncated reason ("length", "time"), "" when complete
	Robots      bool           // a robots.txt fetch: archived as evidence, never embargoed; only for an origin's /robots.txt (ErrNotRobotsTxt)
	Period      embargo.Period // embargo period of the robots.txt group that applied
	Rule        string         // the deciding robots.txt rule, e.g. "12 embargo-allow /news"
	RobotsID    string         // WARC-Record-ID of the robots.txt capture that decided this one
	UsageHeader []string       // Content-Usage header field lines, raw
	UsageRobots []string       // robots.txt Content-Usage expressions that applied, raw
	Usage       []string       // combined preferences per category, e.g. ["train-ai=n", "search=y"]
	Outlinks    []string       // absolute URLs found in the payload

	// Provenance, "" when it does not apply (the metadata record then has no such field).
	RequisiteOf   string // a page requisite: the URL of the page (or stylesheet) that embeds it
	RequisiteOfID string // the capture id of that page, when it was sealed
	// A requisite whose page is sealed on another crawl node (handed off to this one): the page's
	// release time there, which this index cannot look up; zero otherwise.
	RequisiteOfReleaseAt time.Time
	Sitemap              string // a page listed in a sitemap: the sitemap's URL
	SitemapLastmod       string // that sitemap's lastmod for the page, as written
	EmbargoSource        string // what set Period when response headers may: "robots.txt" or "header"
	LoadedBy             string // LoadedByBrowser when a page's browser asked for it; "" for a fetch of the crawler's own

	// Resource is the Content-Type of a resource derived from a page in the browser (its rendered
	// DOM, a screenshot): the capture is then sealed as a WARC resource record (no request record),
	// URL its ResourceURI, Response its block, WARC-Concurrent-To the page (RequisiteOfID), and is
	// withheld like a requisite of the page, so never public before it. "" for an HTTP exchange.
	Resource string
}

// LoadedByBrowser is the LoadedBy of a capture that a page's browser asked for (crawl --browser).
const LoadedByBrowser = "browser"
