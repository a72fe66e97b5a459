package release

import (
	"cmp"
	"slices"
	"strings"

	"github.com/archivectl/archivectl/store"
)

// order sorts a batch in sealed order and holds back (in deferred) every revisit whose
// original is neither public already nor in this batch: a revisit is released only together
// with or after its original.
func (p *pass) order(batch []store.Entry, deferred map[string]bool) ([]store.Entry, error) {
	out := make([]store.Entry, 0, len(batch))
	ok := map[string]bool{}
	for _, e := range batch {
		if !e.Revisit {
			out = append(out, e)
			ok[e.ID] = true
		}
	}
	for _, e := range batch {
		if !e.Revisit {
			continue
		}
		if !ok[e.RefersTo] {
			orig, found, err := p.ix.Get(e.RefersTo)
			if err != nil {
				return nil, err
			}
			if !found || orig.State != store.Released {
				deferred[e.ID] = true
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
	return sorted, nil
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
