package store

import (
	"fmt"
	"strconv"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/nlnwa/gowarc/v3"
)

// Resources derived from a page in the browser (crawl --browser), sealed as WARC resource
// records whose target URI is "urn:<kind>:<page URL>", as Browsertrix names its screenshots
// (urn:view:) and page texts (urn:text:).
const (
	ResourceDOM  = "dom"  // the rendered DOM's outerHTML, text/html
	ResourceView = "view" // a screenshot of the rendered page, image/png
)

// ResourceURI is the target URI of the resource of kind derived from pageURL.
func ResourceURI(kind, pageURL string) string { return "urn:" + kind + ":" + pageURL }

// resourceKey is the index key of a resource's target URI (surt.ResourceKey: the URI itself, as
// warcio's CDXJ indexer keys it). Only the kinds sealed here are taken.
func resourceKey(uri string) (string, error) {
	if k := surt.ResourceKind(uri); k != ResourceDOM && k != ResourceView {
		return "", fmt.Errorf("%q is not a page's resource URI (urn:%s: or urn:%s: and the page's URL)", uri, ResourceDOM, ResourceView)
	}
	return surt.ResourceKey(uri)
}

// buildResource is build for a resource (Capture.Resource): its record, and its entry, which
// waits for the page it was derived from (RequisiteOfID).
func (s *Store) buildResource(c Capture, t time.Time) (*sealing, error) {
	key, err := resourceKey(c.URL)
	if err != nil {
		return nil, err
	}
	if c.RequisiteOfID == "" {
		return nil, fmt.Errorf("%s: a resource names the capture of its page (RequisiteOfID)", c.URL)
	}
	if len(c.Request) > 0 {
		return nil, fmt.Errorf("%s: a resource has no request", c.URL)
	}
	if err := checkDate(t); err != nil {
		return nil, fmt.Errorf("%s: %w", c.URL, err)
	}
	id, err := newRecordID()
	if err != nil {
		return nil, err
	}
	r, err := newRecord(gowarc.Resource, id, t, c.Resource, field{gowarc.WarcTargetURI, c.URL},
		field{gowarc.WarcConcurrentTo, idField(c.RequisiteOfID)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.URL, err)
	}
	d := Digest(s.opt.Digest, c.Response)
	r.fields = append(r.fields, field{gowarc.ContentLength, strconv.Itoa(len(c.Response))},
		field{gowarc.WarcBlockDigest, d}, field{gowarc.WarcPayloadDigest, d})
	r.block = c.Response
	p := &sealing{c: c, resp: r, main: r}
	p.e = Entry{ // no HTTP status; the media type as the record states it, as warcio's indexer gives them
		ID: id, URL: c.URL, SURT: key, Time: t, Mime: c.Resource,
		PayloadDigest: d, Period: c.Period, FirstSeen: t, Usage: c.Usage, UsageHeader: c.UsageHeader,
		UsageRobots: c.UsageRobots, State: Sealed,
		// Always withheld: a resource shows its page and what the page's browser was given, so no
		// tombstone names it; it is released at its release time, the page's if that is later.
		EmbargoSource: SourceRequisite,
	}
	return p, nil
}
