package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// copyCaptures is the copy stage: it copies the sealed members of each capture of batch byte for
// byte into new shards under release-tmp/, with the captures' CDXJ and audit-log lines, and
// returns them staged for a commit after pub. The captures' sealed records are checked as they
// are copied (startChecks, a little ahead): a capture with a damaged one, or a revisit whose
// original has one, is held back, left out as it is in index.db. damaged is the captures held
// back so far this pass; the set it returns adds those of batch.
func (p *pass) copyCaptures(ctx context.Context, pub published, batch []store.Entry, damaged map[string]bool) (_ *staged, _ map[string]bool, err error) {
	s := newStaged(pub, len(batch))
	defer func() {
		if err != nil {
			err = p.unstage(s, err)
		}
	}()
	checks := startChecks(p.sealed, batch)
	defer checks.stop()
	damaged = maps.Clone(damaged)
	for _, e := range batch {
		if err := cancelled(ctx); err != nil {
			return nil, nil, err
		}
		if held, err := p.held(checks, damaged, e); err != nil {
			return nil, nil, err
		} else if held {
			continue
		}
		m, err := p.copyCapture(&s.files, e, &s.log)
		if err != nil {
			return nil, nil, err
		}
		s.add(e, m)
	}
	return s, damaged, nil
}

// held is whether capture e must stay sealed this pass, as its check (in checks) says: a sealed
// record of its own is damaged (added to damaged by holdBack), or it is a revisit whose original is.
func (p *pass) held(checks *checks, damaged map[string]bool, e store.Entry) (bool, error) {
	err := checks.result(checks.pos[e.ID])
	if err == nil && e.Revisit && !damaged[e.RefersTo] {
		if j, ok := checks.pos[e.RefersTo]; ok && j > checks.pos[e.ID] { // checked later: check it now
			if oerr := checkCapture(p.sealed, checks.batch[j]); errors.Is(oerr, ErrDamaged) {
				p.holdBack(damaged, oerr)
			}
		}
	}
	if err != nil {
		if !errors.Is(err, ErrDamaged) {
			return false, err
		}
		p.holdBack(damaged, err)
		return true, nil
	}
	if e.Revisit && damaged[e.RefersTo] {
		p.r.opt.Logger.Warn("revisit held back: its original's sealed record is damaged", "id", e.ID, "refers_to", e.RefersTo)
		return true, nil
	}
	return false, nil
}

// holdBack adds to damaged and reports a capture whose sealed record is damaged (err wraps a
// *DamageError): it stays sealed, unreleased and without a new tombstone, and later scans of
// this pass skip it.
func (p *pass) holdBack(damaged map[string]bool, err error) {
	var d *DamageError
	if !errors.As(err, &d) || damaged[d.ID] {
		return
	}
	damaged[d.ID] = true
	p.r.opt.Logger.Warn("sealed record damaged: capture held back, not released", "id", d.ID, "record", d.Kind,
		"file", d.File, "offset", d.Offset, "err", d.Err)
}

// copyCapture copies the sealed members of e byte for byte into the current shard (starting a
// new one when it would pass the shard size) and adds its CDXJ line and audit-log line to log.
func (p *pass) copyCapture(fs *fileSet, e store.Entry, log *bytes.Buffer) (store.Mark, error) {
	size := e.Request.Length + e.Response.Length + e.Metadata.Length
	if err := fs.rotate(p, size, p.r.opt.ShardSize, shardPrefix, layout.ShardsDir, "archivectl public release shard: sealed records whose embargo has ended, byte for byte"); err != nil {
		return store.Mark{}, err
	}
	w := fs.cur
	var locs [3]store.Location
	for i, loc := range []store.Location{e.Request, e.Response, e.Metadata} {
		if loc.Length == 0 {
			continue
		}
		src, err := p.sealed.open(loc)
		if err != nil {
			return store.Mark{}, fmt.Errorf("capture %s: %w", e.ID, err)
		}
		off, err := w.copyRange(src, loc.Offset, loc.Length)
		if err != nil {
			return store.Mark{}, fmt.Errorf("capture %s: %w", e.ID, err)
		}
		locs[i] = store.Location{File: w.rel, Offset: off, Length: loc.Length}
	}
	resp := locs[1]
	line, err := cdxjLine(e, public.StateReleased, resp)
	if err != nil {
		return store.Mark{}, err
	}
	w.lines = append(w.lines, line)
	le := public.LogEntry{Pass: p.now, Event: public.EventReleased, ID: e.ID, URL: e.URL, Digest: e.PayloadDigest,
		ReleaseAt: e.ReleaseAt.UTC(), File: resp.File, Offset: resp.Offset, Length: resp.Length}
	if locs[0].Length > 0 {
		le.Request = &public.Location{File: locs[0].File, Offset: locs[0].Offset, Length: locs[0].Length}
	}
	if locs[2].Length > 0 {
		le.Metadata = &public.Location{File: locs[2].File, Offset: locs[2].Offset, Length: locs[2].Length}
	}
	if err := writeLogLine(log, le); err != nil {
		return store.Mark{}, err
	}
	return store.Mark{ID: e.ID, State: store.Released, Public: resp, ReleaseAt: e.ReleaseAt}, nil
}
