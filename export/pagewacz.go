package export

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// pageInfo is what datapackage.json says of the package of one page (PageWACZ).
type pageInfo struct {
	URL        string `json:"url"`
	Timestamp  string `json:"timestamp"` // 14 digits
	ID         string `json:"id"`        // the page's capture id
	Requisites int    `json:"requisites"`
	// Embargoed counts the page's requisites the public side holds only as tombstones: still
	// under embargo, so not in the package, and missing from its replay.
	Embargoed int `json:"embargoed_requisites"`
}

// PageWACZ lays out the WACZ package of one released page: the page and the released captures
// its replay needs (its requisites, and the original of any revisit among them), given in any
// order, nothing else. embargoed is how many of its requisites are still under embargo (shown in
// datapackage.json). The archive/ directory has one -selected file per shard the captures are
// in; pages.jsonl lists the page alone. A revisit whose original is not given is left out; the
// page itself must be replayable (a revisit page needs its original).
func PageWACZ(ctx context.Context, fsys fs.FS, page Capture, needs []Capture, embargoed int, opt WACZOptions) (*Package, error) {
	caps := append([]Capture{page}, needs...)
	slices.SortFunc(caps, func(a, b Capture) int {
		return cmp.Or(strings.Compare(a.Shard, b.Shard), cmp.Compare(a.Response.Offset, b.Response.Offset))
	})
	caps = slices.CompactFunc(caps, func(a, b Capture) bool { return a.ID == b.ID })
	have := map[string]bool{}
	for _, c := range caps {
		have[c.ID] = !c.Revisit
	}
	if page.Revisit && !have[page.RefersTo] {
		return nil, fmt.Errorf("page %s is a revisit of %s, which is not given", page.ID, page.RefersTo)
	}
	caps = slices.DeleteFunc(caps, func(c Capture) bool { return c.Revisit && !have[c.RefersTo] })
	pk := &packing{caps: caps,
		describe: func(shard string, n int) string {
			return fmt.Sprintf("the page %s captured %s and %d records it needs to replay, from public/%s, each gzip member byte for byte as released",
				page.URL, page.Timestamp, n, shard)
		},
		page: func(c *Capture) bool { return c.ID == page.ID }}
	return pack(ctx, fsys, pk, opt, dataPackage{
		Title:       "A page of an archivectl archive: " + page.URL + " captured " + page.Captured.UTC().Format("2006-01-02 15:04:05 UTC"),
		Description: "One page this archive has made public after its embargo, with the released captures its replay needs, from its public side.",
		Export:      exportInfo{Page: &pageInfo{URL: page.URL, Timestamp: page.Timestamp, ID: page.ID, Requisites: len(caps) - 1, Embargoed: embargoed}},
	})
}
