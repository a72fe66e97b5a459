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
	RequisiteOf    string // a page requisite: the URL of the page (or stylesheet) that embeds it
	RequisiteOfID  string // the capture id of that page, when it was sealed
	Sitemap        string // a page listed in a sitemap: the sitemap's URL
	SitemapLastmod string // that sitemap's lastmod for the page, as written
	EmbargoSource  string // what set Period when response headers may: "robots.txt" or "header"
}

// SourceRequisite is the EmbargoSource of a requisite withheld for the page that embeds it: its
// release time is that page's, later than its own, and it gets no tombstone (docs/rules.md#d27).
// Seal sets it; a Capture does not.
const SourceRequisite = "requisite"

// Location is where one record's gzip member lies: a file name (relative to its repository
// directory, never a local absolute path), the member's offset and its compressed length.
type Location struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
}

// CaptureState is where a capture stands on its way to the public.
type CaptureState uint8

// The states of a capture.
const (
	Sealed     CaptureState = iota // only in the sealed repository
	Tombstoned                     // a public tombstone exists; the body is still sealed
	Released                       // its records are byte-copied into a public shard
)

// String names the state.
func (s CaptureState) String() string {
	switch s {
	case Sealed:
		return "sealed"
	case Tombstoned:
		return "tombstoned"
	case Released:
		return "released"
	}
	return "unknown"
}

// Entry is the index's record of one sealed capture: everything needed to release it or show its tombstone.
type Entry struct {
	ID            string         `json:"id"` // the response (or revisit) record's WARC-Record-ID
	URL           string         `json:"url"`
	SURT          string         `json:"surt"`
	Time          time.Time      `json:"time"` // capture time
	Status        int            `json:"status"`
	Mime          string         `json:"mime"`
	Headers       [][2]string    `json:"headers"`        // response header fields as received, in order
	PayloadDigest string         `json:"payload_digest"` // "sha256:<hex>" or "sha1:<base32>"
	LastModified  string         `json:"last_modified,omitempty"`
	Period        embargo.Period `json:"period"`
	FirstSeen     time.Time      `json:"first_seen"`
	ReleaseAt     time.Time      `json:"release_at"`
	Robots        bool           `json:"robots,omitempty"`
	Revisit       bool           `json:"revisit,omitempty"`
	RefersTo      string         `json:"refers_to,omitempty"` // a revisit's original capture id
	UsageHeader   []string       `json:"usage_header,omitempty"`
	UsageRobots   []string       `json:"usage_robots,omitempty"`
	Usage         []string       `json:"usage,omitempty"`
	EmbargoSource string         `json:"embargo_source,omitempty"` // what set Period: "robots.txt", "header", or "" when not recorded; SourceRequisite: what set ReleaseAt, the embedding page
	Request       Location       `json:"request"`
	Response      Location       `json:"response"`
	Metadata      Location       `json:"metadata"`
	State         CaptureState   `json:"state"`
	Public        Location       `json:"public,omitzero"` // the released response record or the tombstone, relative to public/
}

// Withheld reports whether the capture is a requisite withheld for its page (SourceRequisite):
// until its release time it is neither released nor tombstoned, since even its URL was read
// from the page's body (docs/rules.md#d27).
func (e Entry) Withheld() bool { return e.EmbargoSource == SourceRequisite }
