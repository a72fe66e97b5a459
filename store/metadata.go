package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/archivectl/archivectl/embargo"
)

// metadataFormat names the JSON document of a capture's metadata record; readers check it.
const metadataFormat = "archivectl-capture-facts/1"

// facts is the body of a capture's metadata record (Content-Type application/json, WARC-Concurrent-To
// the response or revisit). With the response and request records it is everything Reindex needs to
// rebuild the capture's index entry: the embargo facts are fixed at capture time (docs/rules.md#d13) and are
// read back, never recomputed.
type facts struct {
	Format       string         `json:"format"`                  // metadataFormat
	Capture      string         `json:"capture"`                 // the capture id: the response or revisit record id
	URL          string         `json:"url"`                     // target URI
	Period       embargo.Period `json:"embargo_days"`            // embargo period in days; 0 = none
	Rule         string         `json:"rule,omitempty"`          // the deciding robots.txt rule
	LastModified string         `json:"last_modified,omitempty"` // Last-Modified as sent (several lines joined by ", ")
	FirstSeen    time.Time      `json:"first_seen"`              // first capture of this URL and payload digest
	ReleaseAt    time.Time      `json:"release_at"`              // when the capture may become public
	Robots       bool           `json:"robots,omitempty"`        // a robots.txt capture: never embargoed
	RobotsID     string         `json:"robots_id,omitempty"`     // record id of the robots.txt capture that decided this one
	UsageHeader  []string       `json:"usage_header,omitempty"`  // Content-Usage header field lines, raw
	UsageRobots  []string       `json:"usage_robots,omitempty"`  // robots.txt Content-Usage expressions, raw
	Usage        []string       `json:"usage,omitempty"`         // combined preferences
	Truncated    string         `json:"truncated,omitempty"`     // WARC-Truncated reason of the response
	Outlinks     []string       `json:"outlinks,omitempty"`      // absolute URLs found in the payload

	// Added later, absent from older records and from captures they do not apply to.
	RequisiteOf    string `json:"requisite_of,omitempty"`    // URL of the page (or stylesheet) this requisite is embedded in
	RequisiteOfID  string `json:"requisite_of_id,omitempty"` // capture id of that page
	Sitemap        string `json:"sitemap,omitempty"`         // URL of the sitemap that listed this page
	SitemapLastmod string `json:"sitemap_lastmod,omitempty"` // that sitemap's lastmod for it, as written
	EmbargoSource  string `json:"embargo_source,omitempty"`  // what set the period: "robots.txt" or "header" (the Archive-Embargo response field)
}

func (f facts) encode() ([]byte, error) {
	f.Format = metadataFormat
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	return append(b, '\n'), nil
}

// parseFacts reads a metadata record's body.
func parseFacts(b []byte) (facts, error) {
	var f facts
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("metadata record: %w", err)
	}
	if f.Format != metadataFormat {
		return f, fmt.Errorf("metadata record: format %q, want %q", f.Format, metadataFormat)
	}
	if f.Capture == "" {
		return f, fmt.Errorf("metadata record: no capture id")
	}
	f.FirstSeen, f.ReleaseAt = f.FirstSeen.UTC(), f.ReleaseAt.UTC()
	return f, nil
}
