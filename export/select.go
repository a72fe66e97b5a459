package export

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
)

// Capture is one released capture of the public side.
type Capture struct {
	public.Line                   // its line in the shard's CDXJ
	Key         string            // the SURT key of its URL, as surt.Key computes it now
	Captured    time.Time         // capture time, full precision
	Shard       string            // its shard, relative to public/: "shards/PUBLIC-….warc.gz"
	Members     []public.Location // its request, response (or revisit) and metadata members, in file order
	Response    public.Location   // its response (or revisit) member
}

// Selection is the released captures an export keeps, and what it left out.
type Selection struct {
	Filter   Filter
	Kept     []Capture      // in shard order, then file order
	Released int            // released captures found under public/shards
	Excluded map[string]int // captures left out, by reason (every reason the filter can give, even at 0)

	perShard map[string]int // released captures per shard
}

// Counts is what datapackage.json and the command report about a selection.
type Counts struct {
	Released int            `json:"released"`
	Kept     int            `json:"kept"`
	Excluded int            `json:"excluded"`
	ByReason map[string]int `json:"excluded_by_reason"`
}

// Counts sums up the selection.
func (s *Selection) Counts() Counts {
	return Counts{Released: s.Released, Kept: len(s.Kept), Excluded: s.Released - len(s.Kept), ByReason: s.Excluded}
}

// Select reads the released captures of the public directory fsys (its shards' CDXJ and the audit
// log, nothing else) and keeps those f selects. A revisit is kept only with its original, so
// that what is exported replays on its own.
func Select(ctx context.Context, fsys fs.FS, f Filter) (*Selection, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	all, err := released(ctx, fsys)
	if err != nil {
		return nil, err
	}
	s := &Selection{Filter: f, Released: len(all), Excluded: map[string]int{}, perShard: map[string]int{}}
	for _, r := range f.Reasons() {
		s.Excluded[r] = 0
	}
	why := make([]string, len(all))
	kept := map[string]bool{}
	for i, c := range all {
		s.perShard[c.Shard]++
		if why[i] = f.reason(c.Key, c.Captured, c.Usage); why[i] == "" {
			kept[c.ID] = true
		}
	}
	// A revisit whose original is not exported is left out too (until nothing changes: the
	// original of a revisit is never itself a revisit, but an archive may say otherwise).
	for changed := true; changed; {
		changed = false
		for i, c := range all {
			if why[i] == "" && c.Revisit && !kept[c.RefersTo] {
				why[i], kept[c.ID], changed = ReasonRevisitOriginal, false, true
			}
		}
	}
	for i, c := range all {
		if why[i] == "" {
			s.Kept = append(s.Kept, c)
		} else {
			s.Excluded[why[i]]++
		}
	}
	return s, nil
}

// released reads every released capture of the public directory (public.Captures), in shard
// order then file order.
func released(ctx context.Context, fsys fs.FS) ([]Capture, error) {
	lines, err := public.Captures(fsys)
	if err != nil {
		return nil, err
	}
	logged := map[string]public.LogEntry{}
	err = public.ReadLog(fsys, func(e public.LogEntry) error {
		if e.Event == public.EventReleased {
			logged[e.ID] = e
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var all []Capture
	for _, l := range lines {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if l.State != public.StateReleased {
			continue // still under embargo: a tombstone is all there is
		}
		var more []public.Location
		for _, loc := range []*public.Location{logged[l.ID].Request, logged[l.ID].Metadata} {
			if loc != nil {
				more = append(more, *loc)
			}
		}
		c, err := NewCapture(l, more...)
		if err != nil {
			return nil, fmt.Errorf("public/%s: %w", public.PathOf(l.Filename), err)
		}
		all = append(all, c)
	}
	slices.SortStableFunc(all, func(a, b Capture) int {
		return cmp.Or(strings.Compare(a.Shard, b.Shard), cmp.Compare(a.Response.Offset, b.Response.Offset))
	})
	return all, nil
}

// NewCapture is the released capture of a public CDXJ line of a shard, with the locations of its
// other members (its request and metadata records) when they are known: the audit log's entry
// says them, or a reader found them; without them only its response member is known. Members in
// another file are ignored.
func NewCapture(l public.Line, more ...public.Location) (Capture, error) {
	t, err := time.Parse(time.RFC3339Nano, l.CDXJ.Time)
	if err != nil {
		return Capture{}, fmt.Errorf("capture %s: time: %w", l.ID, err)
	}
	base := path.Base(l.Filename)
	if base == "." || base == "/" || !strings.HasSuffix(base, public.WARCExt) {
		return Capture{}, fmt.Errorf("capture %s: filename %q is not a public WARC file", l.ID, l.Filename)
	}
	shard := layout.ShardsDir + "/" + base
	key, err := surt.Key(l.URL)
	if err != nil {
		key = l.SURT
	}
	resp := public.Location{File: shard, Offset: l.Offset, Length: l.Length}
	members := []public.Location{resp}
	for _, loc := range more {
		if loc.Length > 0 && path.Base(loc.File) == base && (loc.Offset != resp.Offset) {
			members = append(members, public.Location{File: shard, Offset: loc.Offset, Length: loc.Length})
		}
	}
	slices.SortFunc(members, func(a, b public.Location) int { return cmp.Compare(a.Offset, b.Offset) })
	return Capture{Line: l, Key: key, Captured: t, Shard: shard, Members: members, Response: resp}, nil
}
