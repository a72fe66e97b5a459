package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/internal/oneline"
	"github.com/archivectl/archivectl/store/index"
)

// Reindex rebuilds dataDir/index.db from the sealed WARC files alone: every complete capture
// (request, response or revisit, metadata) in the valid part of every file is indexed with the facts
// its records carry, so the due order is the one Seal produced. Release states cannot come from the
// sealed files; they are carried over from the old index when it can be read, and otherwise every
// capture starts Sealed. It holds the store's writer lock, builds index.db.reindex and renames it
// over index.db. It returns what it skipped: bad records, incomplete captures.
func Reindex(ctx context.Context, dataDir string) ([]Problem, error) {
	lock, err := lockfile.Acquire(layout.SealedLock(dataDir), 0)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	rb := newRebuilder()
	if err := scanSealed(ctx, layout.Sealed(dataDir), nil, rb); err != nil {
		return nil, err
	}
	entries, problems := rb.finish()

	path := layout.Index(dataDir)
	l := lockfile.InProcessOf(path)
	if err := l.Acquire(lockfile.DefaultTimeout); err != nil {
		return nil, err
	}
	defer l.Release()
	// Hold the old index read-write until the new one has replaced it, so that no release pass
	// marks captures in a file about to be dropped. A damaged one is not trusted at all: it is
	// moved aside (kept for inspection) when the new one replaces it.
	old, states, err := index.ReadStates(path)
	var aside string
	var damaged *DamagedIndexError
	switch {
	case errors.Is(err, lockfile.ErrBusy):
		return nil, err
	case errors.As(err, &damaged):
		aside = fmt.Sprintf("%s.damaged-%s", path, time.Now().UTC().Format("20060102T150405Z"))
		problems = append(problems, Problem{File: layout.IndexFile, What: fmt.Sprintf("damaged (%s); moved aside to %s, every capture starts sealed "+
			"(archivectl verify --reindex then restores release states from public/)", oneline.Of(damaged.Err), filepath.Base(aside))})
	case err != nil:
		problems = append(problems, Problem{File: layout.IndexFile, What: fmt.Sprintf("old index unreadable (%v); every capture starts sealed", err)})
	}
	if old != nil {
		defer old.Close()
	}
	for i := range entries {
		if m, ok := states[entries[i].ID]; ok {
			entries[i].State, entries[i].Public = m.State, m.Public
		}
	}
	tmp := path + ".reindex"
	if err := index.Build(ctx, tmp, entries); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("reindex: %w", err)
	}
	if aside != "" {
		if err := os.Link(path, aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reindex: keep the damaged index: %w", err)
		}
	}
	if err := durable.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("reindex: %w", err)
	}
	return problems, nil
}
