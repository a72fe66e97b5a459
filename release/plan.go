package release

import (
	"cmp"
	"slices"
	"strings"

	"github.com/archivectl/archivectl/store"
)

// plan is the plan stage: it puts the captures of a due scan in sealed order, which is the order
// the copy stage copies them in, and holds back every revisit whose original is neither public
// already nor among them (a revisit is released only together with or after its original),
// returning those apart: the pass's later scans skip them.
func (p *pass) plan(due []store.Entry) (batch []store.Entry, deferred []string, err error) {
	out := make([]store.Entry, 0, len(due))
	ok := map[string]bool{}
	for _, e := range due {
		if !e.Revisit {
			out = append(out, e)
			ok[e.ID] = true
		}
	}
	for _, e := range due {
		if !e.Revisit {
			continue
		}
		if !ok[e.RefersTo] {
			orig, found, err := p.ix.Get(e.RefersTo)
			if err != nil {
				return nil, nil, err
			}
			if !found || orig.State != store.Released {
				deferred = append(deferred, e.ID)
				p.r.opt.Logger.Warn("revisit held back until its original is released", "id", e.ID, "refers_to", e.RefersTo, "original_known", found)
				continue
			}
		}
		out = append(out, e)
		ok[e.ID] = true
	}
	// One commit publishes the whole batch, so order inside it is free: take the sealed order,
	// which reads the sealed files sequentially and lets adjacent members be copied as one range.
	firsts := make([]store.Location, len(out))
	idx := make([]int, len(out))
	for i, e := range out {
		firsts[i], idx[i] = firstMember(e), i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := strings.Compare(firsts[a].File, firsts[b].File); c != 0 {
			return c
		}
		return cmp.Compare(firsts[a].Offset, firsts[b].Offset)
	})
	sorted := make([]store.Entry, len(out))
	for i, k := range idx {
		sorted[i] = out[k]
	}
	return sorted, deferred, nil
}

// firstMember is the location of a capture's first sealed record (normally its request).
func firstMember(e store.Entry) store.Location {
	first := e.Response
	for _, l := range [...]*store.Location{&e.Request, &e.Metadata} {
		if l.Length > 0 && l.File == first.File && l.Offset < first.Offset {
			first = *l
		}
	}
	return first
}
