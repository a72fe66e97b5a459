package index

import (
	"fmt"
	"runtime/debug"

	"github.com/archivectl/archivectl/internal/lockfile"
	bolt "go.etcd.io/bbolt"
)

// PendingMark is a Mark call done in a write transaction not yet committed: Commit makes its
// changes durable, Rollback drops them. Until one of them, the index stays locked, in this
// process and for others (their opens wait, up to their lock timeout); exactly one must be called.
type PendingMark struct {
	l  lockfile.InProcess
	db *bolt.DB
	tx *bolt.Tx
}

// PrepareMark does the work of Mark(marks) (finding, re-encoding and moving every entry) in a
// write transaction it leaves open, so that a caller who must first make something else durable
// (a release commit's journal) has only the index's write left to wait for after that. It fails
// as Mark would, changing nothing. The caller must not use the index otherwise until it has
// called Commit or Rollback.
func (ix *Index) PrepareMark(marks []Mark) (_ *PendingMark, err error) {
	l := lockfile.InProcessOf(ix.path)
	if err := l.Acquire(ix.timeout); err != nil {
		return nil, err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil { // bbolt panics on corrupt pages (withBolt)
			l.Release()
			err = &DamagedIndexError{Path: ix.path, Err: fmt.Errorf("bbolt: %v", r)}
		}
	}()
	db, err := ix.open(false)
	if err != nil {
		l.Release()
		return nil, err
	}
	p := &PendingMark{l: l, db: db}
	if p.tx, err = db.Begin(true); err != nil {
		db.Close()
		l.Release()
		return nil, fmt.Errorf("index: %w", err)
	}
	if len(marks) > 0 {
		if err := markAll(newCodec(p.tx), marks); err != nil {
			p.Rollback()
			return nil, damagedIndex(ix.path, err)
		}
	}
	return p, nil
}

// Commit commits the marks (durably, as Mark does) and closes the index.
func (p *PendingMark) Commit() error {
	err := p.tx.Commit()
	if cerr := p.db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close index: %w", cerr)
	}
	p.l.Release()
	return err
}

// Rollback drops the marks and closes the index.
func (p *PendingMark) Rollback() {
	p.tx.Rollback()
	p.db.Close()
	p.l.Release()
}
