package store

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/nlnwa/gowarc/v3"
)

// rebuilder assembles index entries from the records of sealed WARC files alone: the response or
// revisit record gives the capture's id, URL, time, HTTP status and header fields and payload digest,
// the request and metadata records point at it with WARC-Concurrent-To, and the metadata record's
// facts give the embargo facts fixed at capture time. Verify and Reindex share it.
type rebuilder struct {
	entries   map[string]*Entry // capture id → entry being assembled
	order     []string          // capture ids in the order their main record was found
	reqs      map[string]Location
	metas     map[string]metaAt
	resources map[string]bool // capture ids of resource records (no request)
	problems  []Problem
	damage    []Damage        // the stretches of the files that hold no readable record
	lost      map[string]bool // capture ids a damage problem names (set by finish)
}

type metaAt struct {
	f   facts
	loc Location
}

func newRebuilder() *rebuilder {
	return &rebuilder{entries: map[string]*Entry{}, reqs: map[string]Location{}, metas: map[string]metaAt{}, resources: map[string]bool{}, lost: map[string]bool{}}
}

// damaged takes one stretch of a file that holds no readable record.
func (r *rebuilder) damaged(d Damage) { r.damage = append(r.damage, d) }

// add takes one record found at loc.
func (r *rebuilder) add(loc Location, rec gowarc.WarcRecord) {
	h := rec.WarcHeader()
	bad := func(err error) {
		r.problems = append(r.problems, Problem{File: loc.File, Offset: loc.Offset, What: err.Error()})
	}
	switch rec.Type() {
	case gowarc.Response, gowarc.Revisit:
		body, err := blockBytes(rec)
		if err != nil {
			bad(err)
			return
		}
		head, err := parseResponseHead(body)
		if err != nil {
			bad(err)
			return
		}
		e, err := r.mainEntry(loc, rec, surt.Key)
		if err != nil {
			bad(err)
			return
		}
		e.Status, e.Mime, e.Headers = head.Status, head.mime(), head.Headers
		if rec.Type() == gowarc.Revisit {
			e.Revisit, e.RefersTo = true, h.Get(gowarc.WarcRefersTo)
		}
	case gowarc.Resource:
		e, err := r.mainEntry(loc, rec, resourceKey)
		if err != nil {
			bad(err)
			return
		}
		e.Mime = h.Get(gowarc.ContentType) // no HTTP status (buildResource)
		r.resources[e.ID] = true
	case gowarc.Request:
		r.reqs[h.Get(gowarc.WarcConcurrentTo)] = loc
	case gowarc.Metadata:
		body, err := blockBytes(rec)
		if err != nil {
			bad(err)
			return
		}
		f, err := parseFacts(body)
		if err != nil {
			bad(err)
			return
		}
		if h.Get(gowarc.WarcConcurrentTo) != f.Capture {
			bad(fmt.Errorf("metadata record for %s is concurrent to %s", f.Capture, h.Get(gowarc.WarcConcurrentTo)))
			return
		}
		r.metas[f.Capture] = metaAt{f: f, loc: loc}
	}
}

// mainEntry starts the entry of a capture's main record (response, revisit or resource) at loc,
// keyed by key from its target URI.
func (r *rebuilder) mainEntry(loc Location, rec gowarc.WarcRecord, key func(string) (string, error)) (*Entry, error) {
	h := rec.WarcHeader()
	t, err := time.Parse(time.RFC3339Nano, h.Get(gowarc.WarcDate))
	if err != nil {
		return nil, fmt.Errorf("WARC-Date: %w", err)
	}
	id := IDRef(rec.RecordId())
	if _, dup := r.entries[id]; dup {
		return nil, fmt.Errorf("record id %s appears twice", id)
	}
	url := h.Get(gowarc.WarcTargetURI)
	k, err := key(url)
	if err != nil {
		return nil, err
	}
	e := &Entry{ID: id, URL: url, SURT: k, Time: t.UTC(), PayloadDigest: h.Get(gowarc.WarcPayloadDigest), Response: loc}
	r.entries[id] = e
	r.order = append(r.order, id)
	return e, nil
}

// finish joins the records into entries (state Sealed), sorted by capture time then location, and
// lists captures that lack a record, and each damaged stretch once with the capture that lost a
// record to it (attribute).
func (r *rebuilder) finish() ([]Entry, []Problem) {
	var out []Entry
	var partial []partialCapture
	for _, id := range r.order {
		e := r.entries[id]
		m, okm := r.metas[id]
		q, okq := r.reqs[id]
		delete(r.metas, id)
		delete(r.reqs, id)
		if r.resources[id] { // a resource has no request record
			q, okq = Location{}, true
		}
		if !okm || !okq {
			pc := partialCapture{id: id, locs: []Location{e.Response}, problem: Problem{File: e.Response.File, Offset: e.Response.Offset, ID: id,
				What: "capture is incomplete (its request or metadata record is missing); not indexed"}}
			if okm {
				pc.locs = append(pc.locs, m.loc)
			}
			if okq {
				pc.locs = append(pc.locs, q)
			}
			partial = append(partial, pc)
			continue
		}
		f := m.f
		e.Request, e.Metadata = q, m.loc
		e.Period, e.LastModified, e.FirstSeen, e.ReleaseAt, e.Robots = f.Period, f.LastModified, f.FirstSeen, f.ReleaseAt, f.Robots
		e.UsageHeader, e.UsageRobots, e.Usage, e.EmbargoSource = f.UsageHeader, f.UsageRobots, f.Usage, f.EmbargoSource
		out = append(out, *e)
	}
	for id, m := range r.metas {
		partial = append(partial, partialCapture{id: id, locs: []Location{m.loc},
			problem: Problem{File: m.loc.File, Offset: m.loc.Offset, ID: id, What: "metadata record without its response"}})
	}
	for id, l := range r.reqs {
		partial = append(partial, partialCapture{id: id, locs: []Location{l},
			problem: Problem{File: l.File, Offset: l.Offset, ID: id, What: "request record without its response"}})
	}
	r.problems = append(r.problems, r.attribute(partial)...)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.Response.File != b.Response.File {
			return a.Response.File < b.Response.File
		}
		return a.Response.Offset < b.Response.Offset
	})
	sort.Slice(r.problems, func(i, j int) bool {
		a, b := r.problems[i], r.problems[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Offset < b.Offset
	})
	return out, r.problems
}

// partialCapture is a capture short of a record: the records found of it and the problem that says so.
type partialCapture struct {
	id      string
	locs    []Location
	problem Problem
}

// attribute reports each damaged stretch once, with the capture that lost a record to it: the
// partial capture with a record that ends where the stretch starts or starts where it ends (Seal
// writes a capture's request, response and metadata records one after the other). That capture's
// own problem is folded into the stretch's, and its id goes into r.lost; the problems of the other
// partial captures are returned as they are.
func (r *rebuilder) attribute(partial []partialCapture) []Problem {
	folded := make([]bool, len(partial))
	var ps []Problem
	for _, d := range r.damage {
		var ids []string
		for i, pc := range partial {
			for _, l := range pc.locs {
				if l.File == d.File && (l.Offset+l.Length == d.Offset || l.Offset == d.End) {
					if !slices.Contains(ids, pc.id) {
						ids = append(ids, pc.id)
					}
					folded[i] = true
				}
			}
		}
		slices.Sort(ids)
		p := Problem{File: d.File, Offset: d.Offset,
			What: fmt.Sprintf("bad record: %s (%d bytes unreadable, up to offset %d)", d.Reason(), d.End-d.Offset, d.End)}
		switch len(ids) {
		case 0:
		case 1:
			p.ID = ids[0]
			p.What += "; the capture cannot be indexed or released, its other records are intact"
		default:
			p.What += "; captures " + strings.Join(ids, ", ") + " each lose a record and cannot be indexed or released"
		}
		for _, id := range ids {
			r.lost[id] = true
		}
		ps = append(ps, p)
	}
	for i, pc := range partial {
		if !folded[i] {
			ps = append(ps, pc.problem)
		}
	}
	return ps
}
