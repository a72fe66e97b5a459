package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/warcfields"
)

// The formats of a capture's metadata record; readers check them.
const (
	metadataFormat     = "archivectl-capture-facts/2" // application/warc-fields, written now
	metadataFormatJSON = "archivectl-capture-facts/1" // application/json, written before: read forever
)

// facts is the body of a capture's metadata record (WARC-Concurrent-To the response or revisit),
// named fields as Heritrix writes its metadata records (outlink: per link). With the response
// and request records it is everything Reindex needs to rebuild the capture's index entry: the
// embargo facts are fixed at capture time (docs/rules.md#d13) and are read back, never
// recomputed. Archives sealed before hold the same facts as one JSON document (the json tags).
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
	LoadedBy       string `json:"loaded_by,omitempty"`       // "browser": the page's browser asked for it (crawl --browser)
}

// encode writes the facts as application/warc-fields: one field per fact, in this order, a list
// as one field per element (outlink, the Heritrix name, per outlink); a fact that is empty or
// false is left out, except format, capture, url, embargo_days, first_seen and release_at.
func (f facts) encode() ([]byte, error) {
	var w warcfields.Builder
	w.Add("format", metadataFormat)
	w.Add("capture", f.Capture)
	w.Add("url", f.URL)
	w.Add("embargo_days", strconv.Itoa(f.Period.Days()))
	w.AddNonEmpty("rule", f.Rule)
	w.AddNonEmpty("last_modified", f.LastModified)
	w.Add("first_seen", f.FirstSeen.UTC().Format(time.RFC3339Nano))
	w.Add("release_at", f.ReleaseAt.UTC().Format(time.RFC3339Nano))
	if f.Robots {
		w.Add("robots", "true")
	}
	w.AddNonEmpty("robots_id", f.RobotsID)
	w.AddAll("usage_header", f.UsageHeader)
	w.AddAll("usage_robots", f.UsageRobots)
	w.AddAll("usage", f.Usage)
	w.AddNonEmpty("truncated", f.Truncated)
	w.AddNonEmpty("requisite_of", f.RequisiteOf)
	w.AddNonEmpty("requisite_of_id", f.RequisiteOfID)
	w.AddNonEmpty("sitemap", f.Sitemap)
	w.AddNonEmpty("sitemap_lastmod", f.SitemapLastmod)
	w.AddNonEmpty("embargo_source", f.EmbargoSource)
	w.AddNonEmpty("loaded_by", f.LoadedBy)
	w.AddAll("outlink", f.Outlinks)
	b, err := w.Bytes()
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	return b, nil
}

// parseFacts reads a metadata record's body, in either form: named fields, or the JSON document
// of archives sealed before.
func parseFacts(b []byte) (facts, error) {
	var f facts
	var err error
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		err = json.Unmarshal(b, &f)
		if err == nil && f.Format != metadataFormatJSON {
			err = fmt.Errorf("format %q, want %q", f.Format, metadataFormatJSON)
		}
	} else {
		f, err = factsFromFields(b)
	}
	if err == nil && f.Capture == "" {
		err = fmt.Errorf("no capture id")
	}
	if err != nil {
		return f, fmt.Errorf("metadata record: %w", err)
	}
	f.FirstSeen, f.ReleaseAt = f.FirstSeen.UTC(), f.ReleaseAt.UTC()
	return f, nil
}

// factsFromFields reads the named-field form. Fields it does not know are left alone, so that a
// later version may add some.
func factsFromFields(b []byte) (facts, error) {
	var f facts
	fs, err := warcfields.Parse(b)
	if err != nil {
		return f, err
	}
	if fs[0].Name != "format" || fs[0].Value != metadataFormat {
		return f, fmt.Errorf("format %q, want %q first", fs[0].Value, metadataFormat)
	}
	strs := map[string]*string{"capture": &f.Capture, "url": &f.URL, "rule": &f.Rule, "last_modified": &f.LastModified,
		"robots_id": &f.RobotsID, "truncated": &f.Truncated, "requisite_of": &f.RequisiteOf, "requisite_of_id": &f.RequisiteOfID,
		"sitemap": &f.Sitemap, "sitemap_lastmod": &f.SitemapLastmod, "embargo_source": &f.EmbargoSource, "loaded_by": &f.LoadedBy}
	lists := map[string]*[]string{"usage_header": &f.UsageHeader, "usage_robots": &f.UsageRobots, "usage": &f.Usage, "outlink": &f.Outlinks}
	times := map[string]*time.Time{"first_seen": &f.FirstSeen, "release_at": &f.ReleaseAt}
	for _, x := range fs[1:] {
		switch {
		case strs[x.Name] != nil:
			*strs[x.Name] = x.Value
		case lists[x.Name] != nil:
			*lists[x.Name] = append(*lists[x.Name], x.Value)
		case times[x.Name] != nil:
			if *times[x.Name], err = time.Parse(time.RFC3339Nano, x.Value); err != nil {
				return f, fmt.Errorf("%s: %w", x.Name, err)
			}
		case x.Name == "embargo_days":
			n, err := strconv.Atoi(x.Value)
			if err != nil {
				return f, fmt.Errorf("embargo_days: %w", err)
			}
			f.Period = embargo.Period(n)
		case x.Name == "robots":
			if f.Robots, err = strconv.ParseBool(x.Value); err != nil {
				return f, fmt.Errorf("robots: %w", err)
			}
		}
	}
	f.Format = metadataFormat
	return f, nil
}
