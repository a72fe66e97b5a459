package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/archivectl/archivectl/internal/lockfile"
	bolt "go.etcd.io/bbolt"
)

// buildBatch is how many entries a build (Build, an upgrade) puts per transaction.
const buildBatch = 10000

// ReadStates opens an existing index read-write and reads the release state of every capture in
// it, from either schema; the caller closes it once it no longer needs it held (Reindex holds it
// until the new index replaces it, so that no release pass marks captures in a file about to be
// dropped). No file at path is no state and nothing to close. A damaged index gives an error
// wrapping ErrIndexDamaged, and nothing to close.
func ReadStates(path string) (io.Closer, map[string]Mark, error) {
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

// Build writes a fresh index file at path holding entries (in any order), and the committed end
// of every WARC file they lie in: the end of its last record that an entry points at. It is how
// an index is rebuilt from the sealed files alone (the repository's Reindex); the caller renames
// the file into place.
func Build(ctx context.Context, path string, entries []Entry) error {
	return writeIndex(ctx, path, func(put func(Entry) error) error {
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
				if l.Length > 0 { // a resource record has no request
					ends[l.File] = max(ends[l.File], l.Offset+l.Length)
				}
			}
		}
		for f, end := range ends {
			if err := setFileEnd(tx, f, end); err != nil {
				return err
			}
		}
		return nil
	})
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
	batch := make([]Entry, 0, buildBatch)
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
		if batch = append(batch, e); len(batch) == buildBatch {
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
