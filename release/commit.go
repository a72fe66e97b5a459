package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/archivectl/archivectl/store"
)

// errHeldBack is what add returns for a capture it leaves out of the commit (a damaged sealed
// record): it stays as it is in index.db, and the commit goes on with the others.
var errHeldBack = errors.New("capture held back")

// publish writes the public members of each capture of batch with add, which returns the
// capture's index mark, and commits them together; it returns how many it committed (add may
// hold a capture back with errHeldBack).
func (p *pass) publish(ctx context.Context, batch []store.Entry, add func(*fileSet, store.Entry, *bytes.Buffer) (store.Mark, error)) (n int, err error) {
	var fs fileSet
	journaled := false
	defer func() {
		if err != nil && !journaled { // a journaled commit's files are the next pass's to publish
			fs.abort()
		}
		err = diskFull(err, len(batch), journaled, p.r.dir)
	}()
	var marks []store.Mark
	var done []store.Entry // the captures of marks
	var log bytes.Buffer
	released, tombstoned := 0, 0
	for _, e := range batch {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("pass cancelled: %w", err)
		}
		m, err := add(&fs, e, &log)
		if errors.Is(err, errHeldBack) {
			continue
		}
		if err != nil {
			return 0, err
		}
		marks = append(marks, m)
		done = append(done, e)
		if m.State == store.Released {
			released++
		} else {
			tombstoned++
		}
	}
	if len(marks) == 0 {
		fs.abort() // nothing to commit: every capture was held back
		return 0, nil
	}
	rules, err := p.access()
	if err != nil {
		return 0, err
	}
	rules.note(done, marks)
	journaled, err = p.commit(&fs, marks, log.Bytes(), released, tombstoned)
	if err != nil {
		return 0, err
	}
	return len(marks), nil
}

// commit makes the files durable, then journals and applies the commit; journaled says whether
// the journal was written (the next pass completes a commit that failed after that). The CDXJ
// files, the access rules and the public index's segments are written while the copier may still
// be copying the shards; all are synced together, once it is done.
func (p *pass) commit(fs *fileSet, marks []store.Mark, log []byte, released, tombstoned int) (journaled bool, err error) {
	files, open, err := fs.finish(p.r.dir)
	if err != nil {
		return false, err
	}
	defer func() {
		if open != nil { // failed before commit took them
			fs.wait()
			closeAll(open)
		}
	}()
	acl, err := p.rules.write(p.r.dir) // the access rules these marks make
	if err != nil {
		return false, err
	}
	files = append(files, acl...)
	st := p.state
	st.Generation++
	ic, segs, err := p.indexCommit(fs, st.Generation)
	if err != nil {
		return false, err
	}
	files = append(files, segs...)
	if err := fs.wait(); err != nil {
		return false, err
	}
	st.LastPass = p.now
	st.NextRelease = p.next
	st.Released += int64(released)
	st.Tombstoned += int64(tombstoned)
	st.Software = p.r.opt.Software
	st.AheadOfClock = p.ahead
	j := &journal{Pass: p.now, Files: files, Marks: marks, LogSize: p.logSize, Log: string(log), State: st, Index: ic}
	toSync := open
	open = nil // commit closes them
	if journaled, err = journalAndApply(p.r.dir, p.ix, j, toSync); err != nil {
		return journaled, err
	}
	p.state = st
	p.logSize += int64(len(log))
	return true, nil
}

// diskFullError is a commit that failed because the disk of the data directory is full.
type diskFullError struct {
	err       error
	captures  int
	journaled bool
	dir       string
}

// Error says, in one line, what became of the commit and what to do.
func (e *diskFullError) Error() string {
	cause := e.err.Error()
	if e.journaled {
		return fmt.Sprintf("the disk is full (%s) after the commit of %d captures was journaled: public/ may show part of it until a pass with free space under %s completes it", cause, e.captures, e.dir)
	}
	return fmt.Sprintf("the disk is full (%s): the %d captures of this commit were not published and public/ is as the last commit left it; free space under %s and run the pass again", cause, e.captures, e.dir)
}

func (e *diskFullError) Unwrap() error { return e.err }

// diskFull is err as a diskFullError when the disk is full (ENOSPC, or too little room to commit).
func diskFull(err error, captures int, journaled bool, dir string) error {
	if err == nil || !errors.Is(err, syscall.ENOSPC) {
		return err
	}
	return &diskFullError{err: err, captures: captures, journaled: journaled, dir: dir}
}
