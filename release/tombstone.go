package release

import (
	"bytes"
	"context"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/warcrecord"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// tombstones is the tombstones stage: one tombstone per capture of batch, in new tombstone files
// under release-tmp/, with the captures' CDXJ and audit-log lines, staged for a commit after pub.
func (p *pass) tombstones(ctx context.Context, pub published, batch []store.Entry) (_ *staged, err error) {
	s := newStaged(pub, len(batch))
	defer func() {
		if err != nil {
			err = p.unstage(s, err)
		}
	}()
	for _, e := range batch {
		if err := cancelled(ctx); err != nil {
			return nil, err
		}
		m, err := p.writeTombstone(&s.files, e, &s.log)
		if err != nil {
			return nil, err
		}
		s.add(e, m)
	}
	return s, nil
}

// writeTombstone writes the tombstone of e into the current tombstone file (starting a new one
// when it would pass the shard size) and adds its CDXJ line and audit-log line to log.
func (p *pass) writeTombstone(fs *fileSet, e store.Entry, log *bytes.Buffer) (store.Mark, error) {
	rec, err := tombstoneRecord(e, p.now)
	if err != nil {
		return store.Mark{}, err
	}
	if err := fs.rotate(p, 4096, p.r.opt.ShardSize, tombPrefix, layout.TombstonesDir, "archivectl tombstones: facts of captures still under embargo, without their bodies"); err != nil {
		return store.Mark{}, err
	}
	w := fs.cur
	off, n, err := w.writeRecord(rec)
	if err != nil {
		return store.Mark{}, err
	}
	loc := store.Location{File: w.rel, Offset: off, Length: n}
	line, err := cdxjLine(e, public.StateTombstone, loc)
	if err != nil {
		return store.Mark{}, err
	}
	w.lines = append(w.lines, line)
	if err := writeLogLine(log, public.LogEntry{Pass: p.now, Event: public.EventTombstoned, ID: e.ID, URL: e.URL,
		Digest: e.PayloadDigest, ReleaseAt: e.ReleaseAt.UTC(), File: loc.File, Offset: loc.Offset, Length: loc.Length}); err != nil {
		return store.Mark{}, err
	}
	return store.Mark{ID: e.ID, State: store.Tombstoned, Public: loc, ReleaseAt: e.ReleaseAt}, nil
}

// tombstoneOf gathers the public facts of an entry.
func tombstoneOf(e store.Entry) public.Tombstone {
	h := e.Headers
	if h == nil {
		h = [][2]string{}
	}
	return public.Tombstone{
		ID: e.ID, URL: e.URL, Time: e.Time.UTC(), Status: e.Status, Mime: e.Mime, Headers: h,
		PayloadDigest: e.PayloadDigest, ReleaseAt: e.ReleaseAt.UTC(), PeriodDays: e.Period.Days(),
		Usage: e.Usage, UsageHeader: e.UsageHeader, UsageRobots: e.UsageRobots,
		Revisit: e.Revisit, RefersTo: e.RefersTo,
	}
}

// tombstoneRecord is the WARC record of a tombstone: a `metadata` record about the target URI,
// WARC-Refers-To the sealed capture, dated at the pass, with the Tombstone as named fields
// (application/warc-fields), which replay indexers skip as they skip any metadata of that type.
func tombstoneRecord(e store.Entry, pass time.Time) ([]byte, error) {
	block, err := tombstoneOf(e).MarshalFields()
	if err != nil {
		return nil, err
	}
	return warcrecord.Marshal(typeMetadata, recordID("tombstone:"+e.ID), pass, public.TombstoneType, block,
		[2]string{"WARC-Target-URI", e.URL},
		[2]string{"WARC-Refers-To", store.IDRef(e.ID)})
}
