package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// releaseBatch copies the members of each capture of batch into new shards and commits them,
// all but those held back (holdBack), and returns how many it released.
func (p *pass) releaseBatch(ctx context.Context, batch []store.Entry) (int, error) {
	p.checks = startChecks(p.sealed, batch)
	defer func() { p.checks.stop(); p.checks = nil }()
	return p.publish(ctx, batch, p.copyCapture)
}

// held is whether capture e must stay sealed this pass: a sealed record of its own is damaged
// (reported by holdBack), or it is a revisit whose original is.
func (p *pass) held(e store.Entry) (bool, error) {
	err := p.checks.result(p.checks.pos[e.ID])
	if err == nil && e.Revisit && !p.damaged[e.RefersTo] {
		if j, ok := p.checks.pos[e.RefersTo]; ok && j > p.checks.pos[e.ID] { // checked later: check it now
			if oerr := checkCapture(p.sealed, p.checks.batch[j]); errors.Is(oerr, ErrDamaged) {
				p.holdBack(oerr)
			}
		}
	}
	if err != nil {
		if !errors.Is(err, ErrDamaged) {
			return false, err
		}
		p.holdBack(err)
		return true, nil
	}
	if e.Revisit && p.damaged[e.RefersTo] {
		p.r.opt.Logger.Warn("revisit held back: its original's sealed record is damaged", "id", e.ID, "refers_to", e.RefersTo)
		return true, nil
	}
	return false, nil
}

// holdBack records and reports a capture whose sealed record is damaged (err wraps a
// *DamageError): it stays sealed, unreleased and without a new tombstone, and later scans of
// this pass skip it.
func (p *pass) holdBack(err error) {
	var d *DamageError
	if !errors.As(err, &d) || p.damaged[d.ID] {
		return
	}
	p.damaged[d.ID] = true
	p.r.opt.Logger.Warn("sealed record damaged: capture held back, not released", "id", d.ID, "record", d.Kind,
		"file", d.File, "offset", d.Offset, "err", d.Err)
}

// copyCapture copies the sealed members of e byte for byte into the current shard (starting a
// new one when it would pass the shard size) and adds its CDXJ line and audit-log line to log.
// A capture whose sealed records fail their check (held) is left out with errHeldBack.
func (p *pass) copyCapture(fs *fileSet, e store.Entry, log *bytes.Buffer) (store.Mark, error) {
	if held, err := p.held(e); err != nil {
		return store.Mark{}, err
	} else if held {
		return store.Mark{}, errHeldBack
	}
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
		crashPoint("member")
		locs[i] = store.Location{File: w.rel, Offset: off, Length: loc.Length}
	}
	crashPoint("copy")
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
