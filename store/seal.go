package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/store/index"
	"github.com/nlnwa/gowarc/v3"
)

// Seal writes each capture as a request, a response (or a revisit when this URL's payload was
// captured before) and a metadata record, syncs the WARC file, then indexes the whole batch in
// one transaction. The captures are durable when it returns; on error none of them is indexed.
// It is safe for concurrent callers (batches are serialised). Records are built and compressed
// on all CPUs; larger batches amortise the syncs and the index commit.
func (s *Store) Seal(ctx context.Context, caps []Capture) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("store: Seal after Close")
	}
	if len(caps) == 0 {
		return nil, nil
	}
	ps := make([]*sealing, len(caps))
	defer func() {
		for _, p := range ps {
			p.close()
		}
	}()
	// Responses first, in parallel: their payload digests decide first-seen and revisits.
	if err := parallel(ctx, len(caps), func(i int) (err error) {
		ps[i], err = s.build(caps[i])
		return err
	}); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	var entries []Entry
	startFile, startSize := s.w.name, s.w.size
	err := s.ix.Update(func(tx *index.Tx) error {
		entries = entries[:0]
		b := batch{tx: tx, firsts: map[representation]string{}, originals: map[string]Entry{}, log: s.opt.Logger}
		for _, p := range ps {
			if err := s.decide(&b, p); err != nil {
				return err
			}
		}
		ends, err := s.write(ctx, ps)
		if err != nil {
			return err
		}
		for _, p := range ps {
			entries = append(entries, p.e)
		}
		// The file is synced while the batch is indexed; the index commits only once it is durable.
		synced := s.w.startSync()
		if err := tx.Put(entries); err != nil {
			return err
		}
		for f, end := range ends {
			if err := tx.SetFileEnd(f, end); err != nil {
				return err
			}
		}
		return <-synced
	})
	if err != nil {
		s.undo(startFile, startSize)
		return nil, fmt.Errorf("seal: %w", err)
	}
	if err := s.w.finishRetired(); err != nil { // committed: a file left .open is finished by recovery
		s.opt.Logger.Warn("store: cannot close a full WARC file; the next Open finishes it", "err", err)
	}
	return entries, nil
}

// undo cuts what a failed batch wrote, so that no unindexed record stays behind.
func (s *Store) undo(startFile string, startSize int64) {
	err := s.w.dropRetired(startFile, startSize)
	if s.w.name == startFile {
		err = errors.Join(err, s.w.truncate(startFile, startSize))
	} else {
		err = errors.Join(err, s.w.truncate(s.w.name, s.w.infoLen))
	}
	if err != nil {
		s.opt.Logger.Error("store: cannot undo a failed batch; run archivectl verify", "err", err)
	}
}

// parallel runs fn(0…n-1) on up to GOMAXPROCS goroutines and returns the first error.
func parallel(ctx context.Context, n int, fn func(i int) error) error {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(i); err != nil {
					errs[w] = err
					next.Store(int64(n)) // stop the others early
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ctx.Err()
}

// sealing is one capture on its way into the repository.
type sealing struct {
	c       Capture
	e       Entry
	head    responseHead
	ip      string
	resp    *record       // the response record
	headLen int           // of the response's HTTP head, as gowarc delimits it (httpHeadLen)
	main    *record       // resp, or the revisit made from it
	members *bytes.Buffer // request, main and metadata records as gzip members (memberBufs)
	lens    []int64
}

func (p *sealing) close() {
	if p == nil {
		return
	}
	if p.members != nil && p.members.Cap() <= 8<<20 { // a huge capture's buffer is left to the GC
		memberBufs.Put(p.members)
	}
	p.members = nil
}

// build parses the capture and builds its response record (computing the payload digest).
func (s *Store) build(c Capture) (*sealing, error) {
	t := c.Time
	if t.IsZero() {
		t = s.opt.Now()
	}
	t = t.UTC().Round(0)
	if c.Resource != "" {
		return s.buildResource(c, t)
	}
	key, err := surt.Key(c.URL)
	if err != nil {
		return nil, err
	}
	head, err := parseResponseHead(c.Response)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.URL, err)
	}
	if len(c.Request) == 0 {
		return nil, fmt.Errorf("%s: the capture has no request", c.URL)
	}
	if err := checkTargetURI(c.URL); err != nil {
		return nil, fmt.Errorf("%s: %w", c.URL, err)
	}
	if err := checkDate(t); err != nil {
		return nil, fmt.Errorf("%s: %w", c.URL, err)
	}
	id, err := newRecordID()
	if err != nil {
		return nil, err
	}
	p := &sealing{c: c, head: head, ip: validIP(c.IP)}
	p.resp, p.headLen, err = httpRecord(s.opt.Digest, gowarc.Response, id, t, typeResponse, c.Response,
		field{gowarc.WarcTargetURI, c.URL}, field{gowarc.WarcIPAddress, p.ip}, field{gowarc.WarcTruncated, c.Truncated})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.URL, err)
	}
	p.main = p.resp
	p.e = Entry{
		ID: id, URL: c.URL, SURT: key, Time: t, Status: head.Status, Mime: head.mime(),
		Headers: head.Headers, PayloadDigest: p.resp.get(gowarc.WarcPayloadDigest),
		Period: c.Period, FirstSeen: t, Robots: c.Robots,
		UsageHeader: c.UsageHeader, UsageRobots: c.UsageRobots, Usage: c.Usage, State: Sealed,
		EmbargoSource: c.EmbargoSource,
	}
	if c.Robots {
		if !embargo.RobotsExempt(c.URL) {
			return nil, fmt.Errorf("%s: %w", c.URL, ErrNotRobotsTxt)
		}
		p.e.Period = embargo.None // robots.txt is evidence, never embargoed
	}
	return p, nil
}

// batch is the state of one Seal: its transaction and the representations it has seen so far.
type batch struct {
	tx        *index.Tx
	firsts    map[representation]string // id of the first capture of each, within this batch
	originals map[string]Entry          // id → entry, for originals sealed in this batch
	log       *slog.Logger
}

// representation is what first seen is the first capture of: a URL (its SURT) and a payload digest.
type representation struct{ surt, digest string }

// firstSeen looks the first capture of a representation up in this batch, then in the index.
func (b *batch) firstSeen(surt, digest string) (Entry, bool, error) {
	if id, ok := b.firsts[representation{surt, digest}]; ok {
		return b.originals[id], true, nil
	}
	return b.tx.FirstSeen(surt, digest)
}

// decide fixes the capture's first seen, release time and whether it is a revisit
// (docs/rules.md#release-time, docs/rules.md#d7, docs/rules.md#d13), then makes a requisite
// wait for the page that embeds it (docs/rules.md#d27).
func (s *Store) decide(b *batch, p *sealing) error {
	e := &p.e
	orig, found, err := b.firstSeen(e.SURT, e.PayloadDigest)
	if err != nil {
		return err
	}
	if found && orig.Time.Before(e.Time) {
		e.FirstSeen = orig.Time
	}
	lmValues := p.head.values("Last-Modified")
	e.LastModified = strings.Join(lmValues, ", ")
	lm, _ := embargo.LastModified(lmValues, e.Time)
	e.ReleaseAt = embargo.ReleaseAt(lm, e.FirstSeen, e.Period)
	if found && p.c.Truncated == "" && p.c.Resource == "" { // a resource is never a revisit
		// Identical payload at this URL: a revisit, never public before its original.
		p.main = p.resp.revisit(s.opt.Digest, p.headLen, orig)
		e.Revisit, e.RefersTo = true, orig.ID
		if orig.ReleaseAt.After(e.ReleaseAt) {
			e.ReleaseAt = orig.ReleaseAt
		}
		if orig.Withheld() && !embargo.Releasable(orig.ReleaseAt, e.Time) { // its URL is not public yet either
			e.EmbargoSource = SourceRequisite
		}
		return b.waitForPage(p)
	}
	k := representation{e.SURT, e.PayloadDigest}
	if !found || e.Time.Before(orig.Time) {
		b.firsts[k] = e.ID
	}
	if err := b.waitForPage(p); err != nil {
		return err
	}
	b.originals[e.ID] = *e
	return nil
}

// waitForPage makes a requisite wait for the page (or stylesheet) that embeds it: its URL was
// read from that page's body, so it is public no earlier than the body (docs/rules.md#d27).
// When the page is not public by the requisite's capture time (its release time is later), the
// requisite is withheld (SourceRequisite): no tombstone shows its URL, and its release time is
// the later of its own and the page's. The page's id exists once it is sealed, in an earlier
// batch, so its entry is in the index; a page sealed on another crawl node comes with its
// release time (RequisiteOfReleaseAt); any other page the index does not hold is logged and
// the requisite keeps its own release time.
func (b *batch) waitForPage(p *sealing) error {
	e, id := &p.e, p.c.RequisiteOfID
	if id == "" && p.c.RequisiteOfReleaseAt.IsZero() {
		return nil
	}
	var page Entry
	var ok bool
	var err error
	if id != "" {
		page, ok, err = b.tx.Get(id)
	}
	switch {
	case err != nil:
		return fmt.Errorf("%s: requisite of %s: %w", e.URL, id, err)
	case !ok && !p.c.RequisiteOfReleaseAt.IsZero(): // a page of another node's: the release time it handed over
		if !embargo.Releasable(p.c.RequisiteOfReleaseAt, e.Time) {
			e.ReleaseAt, e.EmbargoSource = later(e.ReleaseAt, p.c.RequisiteOfReleaseAt), SourceRequisite
		}
	case !ok:
		b.log.Warn("store: a requisite's page is not in the index: the requisite keeps its own release time",
			"url", e.URL, "requisite_of", p.c.RequisiteOf, "requisite_of_id", id)
	case !embargo.Releasable(page.ReleaseAt, e.Time):
		e.ReleaseAt, e.EmbargoSource = later(e.ReleaseAt, page.ReleaseAt), SourceRequisite
	}
	return nil
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// encoders are reused gzip encoders, one per worker at a time.
var encoders = sync.Pool{New: func() any { return newEncoder() }}

// memberBufs are reused buffers of a capture's gzip members, held from encode until Seal is done.
var memberBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encode builds the request and metadata records and compresses the capture's three members.
func (s *Store) encode(p *sealing) error {
	c, e := p.c, &p.e
	reqID, err := newRecordID()
	if err != nil {
		return err
	}
	var req *record // a resource has none
	if c.Resource == "" {
		if req, _, err = httpRecord(s.opt.Digest, gowarc.Request, reqID, e.Time, typeRequest, c.Request,
			field{gowarc.WarcTargetURI, c.URL}, field{gowarc.WarcIPAddress, p.ip}, field{gowarc.WarcConcurrentTo, e.ID}); err != nil {
			return fmt.Errorf("%s: request: %w", c.URL, err)
		}
	}
	body, err := facts{
		Capture: e.ID, URL: c.URL, Period: e.Period, Rule: c.Rule, LastModified: e.LastModified,
		FirstSeen: e.FirstSeen, ReleaseAt: e.ReleaseAt, Robots: c.Robots, RobotsID: c.RobotsID,
		UsageHeader: c.UsageHeader, UsageRobots: c.UsageRobots, Usage: c.Usage, Truncated: c.Truncated, Outlinks: c.Outlinks,
		RequisiteOf: c.RequisiteOf, RequisiteOfID: c.RequisiteOfID, Sitemap: c.Sitemap, SitemapLastmod: c.SitemapLastmod,
		EmbargoSource: e.EmbargoSource, // SourceRequisite when decide withheld it
		LoadedBy:      c.LoadedBy,
	}.encode()
	if err != nil {
		return err
	}
	metaID, err := newRecordID()
	if err != nil {
		return err
	}
	meta, err := fieldsRecord(s.opt.Digest, gowarc.Metadata, metaID, e.Time, typeMetadata, body,
		field{gowarc.WarcTargetURI, c.URL}, field{gowarc.WarcConcurrentTo, e.ID})
	if err != nil {
		return fmt.Errorf("%s: metadata: %w", c.URL, err)
	}
	enc := encoders.Get().(*encoder)
	defer encoders.Put(enc)
	if p.members == nil {
		p.members = memberBufs.Get().(*bytes.Buffer)
	}
	p.members.Reset()
	if req == nil {
		p.lens, err = enc.encode(p.members, p.main, meta)
		p.lens = append([]int64{0}, p.lens...)
	} else {
		p.lens, err = enc.encode(p.members, req, p.main, meta)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.URL, err)
	}
	return nil
}

// write encodes the captures' members on all CPUs and appends them to the WARC file in capture
// order as soon as they are ready, while later captures are still being compressed (the writer
// starts their writeback at once, so the sync that follows has little left to wait for). It sets
// each entry's locations and returns the committed end of every file it wrote to.
func (s *Store) write(ctx context.Context, ps []*sealing) (map[string]int64, error) {
	var mu sync.Mutex
	ready := make([]bool, len(ps))
	next := 0
	ends := map[string]int64{}
	err := parallel(ctx, len(ps), func(i int) error {
		if err := s.encode(ps[i]); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		ready[i] = true
		for ; next < len(ps) && ready[next]; next++ {
			p := ps[next]
			file, off, err := s.w.appendMembers(p.members.Bytes())
			if err != nil {
				return err
			}
			e := &p.e
			if p.lens[0] > 0 { // a resource has no request record
				e.Request = Location{File: file, Offset: off, Length: p.lens[0]}
			}
			e.Response = Location{File: file, Offset: off + p.lens[0], Length: p.lens[1]}
			e.Metadata = Location{File: file, Offset: off + p.lens[0] + p.lens[1], Length: p.lens[2]}
			ends[file] = e.Metadata.Offset + e.Metadata.Length
		}
		return nil
	})
	return ends, err
}
