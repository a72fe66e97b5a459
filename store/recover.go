package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/store/index"
	"github.com/nlnwa/gowarc/v3"
)

// errStop ends a scan early without an error.
var errStop = errors.New("stop")

// recoverOpen repairs the .open files a killed writer left in sealed: each is cut back to the end of
// the records its last committed batch indexed (torn or uncommitted tails go), synced and renamed
// to its final name; a file with no committed record is removed. Should a file hold less than the
// index says (a lost write), the index entries that point past its valid data are dropped.
// Callers hold the writer lock, so no live writer owns these files.
func recoverOpen(sealed string, ix *Index, log *slog.Logger) ([]Problem, error) {
	paths, err := filepath.Glob(filepath.Join(sealed, "*.warc.gz"+openSuffix))
	if err != nil {
		return nil, err
	}
	var problems []Problem
	for _, p := range paths {
		ps, err := recoverFile(sealed, p, ix)
		if err != nil {
			return problems, fmt.Errorf("recover %s: %w", filepath.Base(p), err)
		}
		for _, pr := range ps {
			log.Warn("store: recovered", "file", pr.File, "offset", pr.Offset, "id", pr.ID, "problem", pr.What)
		}
		problems = append(problems, ps...)
	}
	return problems, nil
}

func recoverFile(sealed, path string, ix *Index) ([]Problem, error) {
	name := strings.TrimSuffix(filepath.Base(path), openSuffix)
	var committed int64
	var known bool
	if err := ix.View(func(tx *index.Tx) error {
		committed, known = tx.FileEnd(name)
		return nil
	}); err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !known {
		if err := os.Remove(path); err != nil {
			return nil, err
		}
		return []Problem{{File: name, What: fmt.Sprintf("removed an unfinished file with no indexed record (%d bytes)", st.Size())}}, durable.SyncDir(sealed)
	}
	// Find where valid records end, up to the committed end.
	var valid, info int64
	err = ScanFile(path, func(loc Location, _ gowarc.WarcRecord) error {
		if loc.Offset+loc.Length > committed {
			return errStop
		}
		valid = loc.Offset + loc.Length
		if loc.Offset == 0 {
			info = valid
		}
		return nil
	})
	var se *ScanError
	if err != nil && !errors.Is(err, errStop) && !errors.As(err, &se) {
		return nil, err
	}
	var problems []Problem
	cut := committed
	if valid < committed {
		// Keep only whole captures that survive: cut after the last of them (or the warcinfo).
		dropped, keep, err := dropPast(ix, name, valid)
		if err != nil {
			return nil, err
		}
		cut = max(keep, info)
		for _, id := range dropped {
			problems = append(problems, Problem{File: name, Offset: cut, ID: id,
				What: "index entry pointed past the file's valid data; dropped (the capture is lost)"})
		}
	}
	if st.Size() > cut {
		problems = append(problems, Problem{File: name, Offset: cut,
			What: fmt.Sprintf("cut %d bytes of torn or uncommitted tail", st.Size()-cut)})
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	err = f.Truncate(cut)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return problems, finishFile(sealed, name)
}

// dropPast deletes every index entry with a record in file that ends past end, and sets the file's
// committed end to the end of the last capture that stays, which it returns. It walks all
// captures: it runs only when a write was lost.
func dropPast(ix *Index, file string, end int64) (dropped []string, keep int64, err error) {
	err = ix.Update(func(tx *index.Tx) error {
		dropped, keep = dropped[:0], 0
		var doomed []Entry
		err := tx.Each(func(e Entry) error {
			past, last := false, int64(0)
			for _, l := range []Location{e.Request, e.Response, e.Metadata} {
				if l.File == file {
					past = past || l.Offset+l.Length > end
					last = max(last, l.Offset+l.Length)
				}
			}
			if past {
				doomed = append(doomed, e)
			} else {
				keep = max(keep, last)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, e := range doomed {
			if err := tx.Delete(e); err != nil {
				return err
			}
			dropped = append(dropped, e.ID)
		}
		return tx.SetFileEnd(file, keep)
	})
	return dropped, keep, err
}
