package crawler

import (
	"net/http"

	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/archivectl/archivectl/embargo"
	"github.com/dunglas/httpsfv"
)

// Where a capture's embargo period came from, recorded when response headers may set it.
const (
	sourceRobots = "robots.txt"
	sourceHeader = "header"
)

// headerEmbargo reads an Archive-Embargo response field as proposed for the embargo draft (a
// structured field Item: the Token w, m or q, any case, parameters ignored). ok is false when
// the field is absent or anything else: an invalid field is ignored.
func headerEmbargo(h http.Header) (embargo.Period, bool) {
	lines := h.Values("Archive-Embargo")
	if len(lines) == 0 {
		return embargo.None, false
	}
	it, err := httpsfv.UnmarshalItem(lines)
	if err != nil {
		return embargo.None, false
	}
	tok, ok := it.Value.(httpsfv.Token)
	if !ok {
		return embargo.None, false
	}
	return embargo.ParsePeriod(string(tok))
}

// period is a capture's embargo and, when the header switch is on, what decided it: the
// robots.txt period, lengthened (never shortened) by a longer Archive-Embargo response field.
// Only an allowed URL is ever fetched, so the field cannot make a disallowed one allowed.
func (c *Crawl) period(d robots.Decision, h http.Header) (embargo.Period, string) {
	if !c.cfg.HeaderEmbargo {
		return d.Period, ""
	}
	if p, ok := headerEmbargo(h); ok && p > d.Period {
		return p, sourceHeader
	}
	if d.Period != embargo.None {
		return d.Period, sourceRobots
	}
	return embargo.None, ""
}
