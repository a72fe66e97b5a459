package index

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/internal/surt"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// upgradeSuffix names the schema 2 index an upgrade builds beside index.db.
const upgradeSuffix = ".upgrade"

// bucketV1Captures is schema 1's bucket of JSON entries keyed by capture id.
var bucketV1Captures = []byte("captures")

// upgradeHook, when set (by tests only), is called at each step of an upgrade.
var upgradeHook func(step string)

// upgrade converts a schema 1 index in place: it builds the schema 2 index at path+".upgrade"
// (by way of path+".upgrade.build") from the old one, held open read-write (so no other process writes it meanwhile), syncs it and
// renames it over path, then syncs the directory. A kill leaves either the old file, with a
// leftover that the next upgrade deletes, or the new one: never a mix. It logs one line.
func (ix *Index) upgrade(log *slog.Logger) error {
	l := lockfile.InProcessOf(ix.path)
	if err := l.Acquire(ix.timeout); err != nil {
		return err
	}
	defer l.Release()
	old, err := openCurrent(ix.path, ix.timeout)
	if err != nil {
		return err
	}
	defer old.Close()
	var schema int
	var counts [3]int
	if err := old.View(func(tx *bolt.Tx) error {
		schema = readSchema(tx)
		if schema == 1 {
			for s := Sealed; s <= Released; s++ {
				counts[s] = getCount(tx, s)
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("upgrade %s: %w", ix.path, err)
	}
	switch schema {
	case schemaVersion:
		return nil // upgraded by another process while this one waited
	case 1:
	default:
		return fmt.Errorf("upgrade %s: schema %d is not schema 1", ix.path, schema)
	}
	tmp := ix.path + upgradeSuffix
	if err := removeStaleUpgrade(ix.path); err != nil {
		return err
	}
	log.Warn("index: upgrading index.db in place from schema 1 (JSON) to schema 2 (binary, release-ordered); a kill leaves schema 1 and the next start upgrades again",
		"path", ix.path, "captures", counts[Sealed]+counts[Tombstoned]+counts[Released])
	if err := buildFromV1(old, tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("upgrade %s to schema 2: %w", ix.path, err)
	}
	hook("built")
	if err := durable.Rename(tmp, ix.path); err != nil {
		return fmt.Errorf("upgrade %s to schema 2: %w", ix.path, err)
	}
	hook("renamed")
	return nil
}

func hook(step string) {
	if upgradeHook != nil {
		upgradeHook(step)
	}
}

// openCurrent opens path read-write, retrying when the file it locked was replaced meanwhile
// (an upgrade or reindex in another process renamed a new index over it).
func openCurrent(path string, timeout time.Duration) (*bolt.DB, error) {
	for range 10 {
		var f *os.File
		db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
			var err error
			f, err = os.OpenFile(name, flag, mode)
			return f, err
		}})
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, lockfile.Busy(path)
		}
		if err != nil {
			return nil, fmt.Errorf("open index %s: %w", path, err)
		}
		held, herr := f.Stat()
		now, nerr := os.Stat(path)
		if herr == nil && nerr == nil && os.SameFile(held, now) {
			return db, nil
		}
		db.Close()
	}
	return nil, fmt.Errorf("open index %s: it keeps being replaced", path)
}

// removeStaleUpgrade deletes what a killed upgrade left beside a schema 2 index: only an upgrade
// of a schema 1 file, holding that file's lock, ever writes it.
func removeStaleUpgrade(path string) error {
	for _, p := range []string{path + upgradeSuffix, path + upgradeSuffix + buildSuffix} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("index: remove a stale upgrade: %w", err)
		}
	}
	return nil
}

// buildFromV1 writes a schema 2 index at path holding every entry of the schema 1 index old, its
// SURT key computed anew (the urls and firstseen keys follow it), and its files bucket as it is.
func buildFromV1(old *bolt.DB, path string) error {
	return old.View(func(otx *bolt.Tx) error {
		caps, files := otx.Bucket(bucketV1Captures), otx.Bucket(bucketFiles)
		if caps == nil || files == nil {
			return errors.New("schema 1 index without its captures or files bucket")
		}
		return writeIndex(context.Background(), path, func(put func(Entry) error) error {
			return caps.ForEach(func(k, v []byte) error {
				var e Entry
				if err := json.Unmarshal(v, &e); err != nil {
					return fmt.Errorf("schema 1 entry %s: %w", k, err)
				}
				if key, err := surt.Key(e.URL); err == nil {
					e.SURT = key // schema 1 indexes hold the SURT form of earlier versions
				}
				return put(e)
			})
		}, func(tx *bolt.Tx) error {
			return files.ForEach(func(k, v []byte) error {
				if len(v) != 8 {
					return fmt.Errorf("schema 1 files entry %s: %w", k, errCorrupt)
				}
				return setFileEnd(tx, string(k), int64(binary.BigEndian.Uint64(v)))
			})
		})
	})
}
