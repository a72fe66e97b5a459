package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	bolt "go.etcd.io/bbolt"
)

// reindexBatch is how many entries Reindex and an upgrade put per transaction.
const reindexBatch = 10000

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
	old, states, err := oldStates(path)
	var aside string
	var damaged *DamagedIndexError
	switch {
	case errors.Is(err, lockfile.ErrBusy):
		return nil, err
	case errors.As(err, &damaged):
		aside = fmt.Sprintf("%s.damaged-%s", path, time.Now().UTC().Format("20060102T150405Z"))
		problems = append(problems, Problem{File: layout.IndexFile, What: fmt.Sprintf("damaged (%s); moved aside to %s, every capture starts sealed "+
			"(archivectl verify --reindex then restores release states from public/)", oneLine(damaged.Err), filepath.Base(aside))})
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
	err = writeIndex(ctx, tmp, func(put func(Entry) error) error {
		for _, e := range entries {
			if err := put(e); err != nil {
				return err
			}
		}
		return nil
	}, func(tx *bolt.Tx) error {
		ends := map[string]int64{}
		for _, e := range entries {
			for _, l := range []Location{e.Request, e.Response, e.Metadata} {
				ends[l.File] = max(ends[l.File], l.Offset+l.Length)
			}
		}
		for f, end := range ends {
			if err := setFileEnd(tx, f, end); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
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

// oldStates opens an existing index read-write (the caller closes it) and reads the release state
// of every capture in it, from either schema. A damaged index gives an error wrapping
// ErrIndexDamaged, and no open DB.
func oldStates(path string) (*bolt.DB, map[string]Mark, error) {
	states := map[string]Mark{}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, states, nil
	}
	var db *bolt.DB
	err := withBolt(path, bolt.Options{Timeout: lockfile.DefaultTimeout}, func(d *bolt.DB) error {
		db = d
		err := d.View(func(tx *bolt.Tx) error {
			switch schema := readSchema(tx); schema {
			case 1:
				b := tx.Bucket(bucketV1Captures)
				if b == nil {
					return errors.New("no captures bucket")
				}
				return b.ForEach(func(k, v []byte) error {
					var e Entry
					if err := json.Unmarshal(v, &e); err != nil {
						return err
					}
					states[e.ID] = Mark{ID: e.ID, State: e.State, Public: e.Public}
					return nil
				})
			case schemaVersion:
				return eachEntry(newCodec(tx), func(e Entry) error {
					states[e.ID] = Mark{ID: e.ID, State: e.State, Public: e.Public}
					return nil
				})
			default:
				return fmt.Errorf("index schema %d", schema)
			}
		})
		if err != nil {
			return err
		}
		return errKeepOpen // withBolt closes the DB unless told not to
	})
	if errors.Is(err, errKeepOpen) {
		return db, states, nil
	}
	return nil, nil, err
}

// writeIndex writes a fresh index file at path holding the entries feed puts, then runs finish in
// a last transaction. The entries arrive in any order, so they go to path+".build" first, in
// batches, which is then copied in key order into path with full pages and synced.
func writeIndex(ctx context.Context, path string, feed func(put func(Entry) error) error, finish func(*bolt.Tx) error) error {
	build := path + buildSuffix
	for _, p := range []string{path, build} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	defer os.Remove(build)
	db, err := bolt.Open(build, 0o600, &bolt.Options{Timeout: lockfile.DefaultTimeout, NoSync: true})
	if err != nil {
		return err
	}
	defer db.Close()
	batch := make([]Entry, 0, reindexBatch)
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := db.Update(func(tx *bolt.Tx) error {
			if err := initBuckets(tx); err != nil {
				return err
			}
			c := newCodec(tx)
			for _, e := range batch {
				if err := putEntry(c, e); err != nil {
					return err
				}
			}
			return nil
		})
		batch = batch[:0]
		return err
	}
	err = feed(func(e Entry) error {
		if batch = append(batch, e); len(batch) == reindexBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil && finish != nil {
		err = db.Update(finish)
	}
	if err != nil {
		return err
	}
	dst, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockfile.DefaultTimeout, NoSync: true})
	if err != nil {
		return err
	}
	err = bolt.Compact(dst, db, 64<<20)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}

// buildSuffix names the unordered file an index is first built in.
const buildSuffix = ".build"
