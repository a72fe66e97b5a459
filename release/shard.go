package release

import (
	"bytes"
	"context"
	"fmt"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// releaseBatch copies the members of each capture of batch into new shards and commits them.
func (p *pass) releaseBatch(ctx context.Context, batch []store.Entry) error {
	return p.publish(ctx, batch, p.copyCapture)
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
			return store.Mark{}, fmt.Errorf("release: capture %s: %w", e.ID, err)
		}
		off, err := w.copyRange(src, loc.Offset, loc.Length)
		if err != nil {
			return store.Mark{}, fmt.Errorf("release: capture %s: %w", e.ID, err)
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
