package release

import (
	"bytes"
	"context"
	"fmt"

	"github.com/archivectl/archivectl/store"
)

// publish writes the public members of each capture of batch with add, which returns the
// capture's index mark, and commits them together.
func (p *pass) publish(ctx context.Context, batch []store.Entry, add func(*fileSet, store.Entry, *bytes.Buffer) (store.Mark, error)) (err error) {
	var fs fileSet
	defer func() {
		if err != nil {
			fs.abort()
		}
	}()
	var marks []store.Mark
	var log bytes.Buffer
	released, tombstoned := 0, 0
	for _, e := range batch {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("release: pass cancelled: %w", err)
		}
		m, err := add(&fs, e, &log)
		if err != nil {
			return err
		}
		marks = append(marks, m)
		if m.State == store.Released {
			released++
		} else {
			tombstoned++
		}
	}
	return p.commit(&fs, marks, log.Bytes(), released, tombstoned)
}

// commit makes the files durable, then journals and applies the commit.
func (p *pass) commit(fs *fileSet, marks []store.Mark, log []byte, released, tombstoned int) error {
	files, err := fs.finish(p.r.dir)
	if err != nil {
		return err
	}
	st := p.state
	st.Generation++
	ic, segs, err := p.indexCommit(fs, st.Generation)
	if err != nil {
		return err
	}
	files = append(files, segs...)
	st.LastPass = p.now
	st.NextRelease = p.next
	st.Released += int64(released)
	st.Tombstoned += int64(tombstoned)
	st.Software = p.r.opt.Software
	j := &journal{Pass: p.now, Files: files, Marks: marks, LogSize: p.logSize, Log: string(log), State: st, Index: ic}
	if err := commit(p.r.dir, p.ix, j); err != nil {
		return err
	}
	p.state = st
	p.logSize += int64(len(log))
	return nil
}
