package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/archivectl/archivectl/store/lockfile"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// schemaVersion is the layout of index.db this code reads and writes.
const schemaVersion = 1

// The buckets of index.db.
var (
	bucketMeta      = []byte("meta")      // "schema" → version; "count/<state>" → uint64
	bucketCaptures  = []byte("captures")  // capture id → JSON Entry
	bucketDue       = []byte("due")       // timeKey(ReleaseAt) ‖ id → ""; every capture not yet Released
	bucketEmbargoed = []byte("embargoed") // timeKey(ReleaseAt) ‖ id → ""; every capture still Sealed
	bucketURLs      = []byte("urls")      // SURT ‖ 0x00 ‖ timeKey(capture time) ‖ id → ""
	bucketFirstSeen = []byte("firstseen") // SURT ‖ 0x00 ‖ payload digest → JSON firstSeen
	bucketFiles     = []byte("files")     // WARC file name → committed end offset (8 bytes BE)

	allBuckets = [][]byte{bucketMeta, bucketCaptures, bucketDue, bucketEmbargoed, bucketURLs, bucketFirstSeen, bucketFiles}
	keySchema  = []byte("schema")
)

// firstSeen is the first capture of one representation (URL and payload digest) in this archive.
type firstSeen struct {
	Time time.Time `json:"time"`
	ID   string    `json:"id"` // the original (never a revisit) capture id
}

// Index is the sealed index, index.db. It opens the bbolt file per operation (open, one
// transaction, close) with a lock timeout, so a crawl that runs for hours never blocks a release pass.
type Index struct {
	path    string
	timeout time.Duration
}

// OpenIndex prepares the index at path, creating it (and its directory) when absent and checking its
// schema; a lock held elsewhere for longer than timeout gives an error wrapping lockfile.ErrBusy.
func OpenIndex(path string, timeout time.Duration) (*Index, error) {
	if timeout <= 0 {
		timeout = lockfile.DefaultTimeout
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	ix := &Index{path: path, timeout: timeout}
	if err := ix.update(initBuckets); err != nil {
		return nil, err
	}
	return ix, nil
}

// Path is the index file's path.
func (ix *Index) Path() string { return ix.path }

// initBuckets creates the buckets of an empty index and rejects another schema.
func initBuckets(tx *bolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	if v := meta.Get(keySchema); v != nil {
		if n, _ := strconv.Atoi(string(v)); n != schemaVersion {
			return fmt.Errorf("%s has index schema %s, this archivectl reads %d; rebuild it with archivectl verify --reindex",
				tx.DB().Path(), v, schemaVersion)
		}
	} else if err := meta.Put(keySchema, []byte(strconv.Itoa(schemaVersion))); err != nil {
		return err
	}
	for _, b := range allBuckets[1:] {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

// open opens the bbolt file, mapping a lock timeout to a lockfile.BusyError.
func (ix *Index) open(readOnly bool) (*bolt.DB, error) {
	db, err := bolt.Open(ix.path, 0o600, &bolt.Options{Timeout: ix.timeout, ReadOnly: readOnly})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, lockfile.Busy(ix.path)
	}
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", ix.path, err)
	}
	return db, nil
}

// update runs fn in one read-write transaction of a freshly opened index.
func (ix *Index) update(fn func(*bolt.Tx) error) error {
	l := lockfile.InProcessOf(ix.path)
	if err := l.Acquire(ix.timeout); err != nil {
		return err
	}
	defer l.Release()
	db, err := ix.open(false)
	if err != nil {
		return err
	}
	err = db.Update(fn)
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close index: %w", cerr)
	}
	return err
}

// view runs fn in one read-only transaction of a freshly opened index.
func (ix *Index) view(fn func(*bolt.Tx) error) error {
	l := lockfile.InProcessOf(ix.path)
	if err := l.Acquire(ix.timeout); err != nil {
		return err
	}
	defer l.Release()
	db, err := ix.open(true)
	if err != nil {
		return err
	}
	err = db.View(fn)
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close index: %w", cerr)
	}
	return err
}

// timeKey encodes t so that byte order is time order: seconds with the sign bit flipped, then nanoseconds.
func timeKey(t time.Time) []byte {
	k := make([]byte, 12)
	binary.BigEndian.PutUint64(k, uint64(t.Unix())^(1<<63))
	binary.BigEndian.PutUint32(k[8:], uint32(t.Nanosecond()))
	return k
}

// keyTime decodes the first 12 bytes of a key made by timeKey.
func keyTime(k []byte) time.Time {
	sec := int64(binary.BigEndian.Uint64(k) ^ (1 << 63))
	return time.Unix(sec, int64(binary.BigEndian.Uint32(k[8:]))).UTC()
}

// timeIDKey is timeKey(t) ‖ id, the key of the due and embargoed buckets.
func timeIDKey(t time.Time, id string) []byte { return append(timeKey(t), id...) }

// urlKey is the key of the urls bucket.
func urlKey(surt string, t time.Time, id string) []byte {
	k := append([]byte(surt), 0)
	return append(append(k, timeKey(t)...), id...)
}

// firstSeenKey is the key of the firstseen bucket.
func firstSeenKey(surt, digest string) []byte {
	return append(append([]byte(surt), 0), digest...)
}

// getEntry reads one capture's entry inside tx.
func getEntry(tx *bolt.Tx, id string) (Entry, bool, error) {
	v := tx.Bucket(bucketCaptures).Get([]byte(id))
	if v == nil {
		return Entry{}, false, nil
	}
	var e Entry
	if err := json.Unmarshal(v, &e); err != nil {
		return Entry{}, false, fmt.Errorf("index entry %s: %w", id, err)
	}
	return e, true, nil
}

// putEntry stores a new capture's entry and every key that points at it, and counts it.
func putEntry(tx *bolt.Tx, e Entry) error {
	v, err := json.Marshal(e)
	if err != nil {
		return err
	}
	caps := tx.Bucket(bucketCaptures)
	if caps.Get([]byte(e.ID)) != nil {
		return fmt.Errorf("index already holds capture %s", e.ID)
	}
	if err := caps.Put([]byte(e.ID), v); err != nil {
		return err
	}
	if e.State != Released {
		if err := putSeq(tx.Bucket(bucketDue), timeIDKey(e.ReleaseAt, e.ID)); err != nil {
			return err
		}
	}
	if e.State == Sealed {
		if err := putSeq(tx.Bucket(bucketEmbargoed), timeIDKey(e.ReleaseAt, e.ID)); err != nil {
			return err
		}
	}
	if err := tx.Bucket(bucketURLs).Put(urlKey(e.SURT, e.Time, e.ID), nil); err != nil {
		return err
	}
	if !e.Revisit {
		if err := noteFirstSeen(tx, e); err != nil {
			return err
		}
	}
	return addCount(tx, e.State, 1)
}

// putSeq puts an empty value under a key that mostly arrives in order.
func putSeq(b *bolt.Bucket, k []byte) error {
	b.FillPercent = 0.9
	return b.Put(k, nil)
}

// noteFirstSeen records e as the first capture of its representation unless an earlier one is known.
func noteFirstSeen(tx *bolt.Tx, e Entry) error {
	b := tx.Bucket(bucketFirstSeen)
	k := firstSeenKey(e.SURT, e.PayloadDigest)
	if v := b.Get(k); v != nil {
		var fs firstSeen
		if err := json.Unmarshal(v, &fs); err == nil && !e.Time.Before(fs.Time) {
			return nil
		}
	}
	v, err := json.Marshal(firstSeen{Time: e.Time, ID: e.ID})
	if err != nil {
		return err
	}
	return b.Put(k, v)
}

// lookupFirstSeen returns the first capture of a representation, if any.
func lookupFirstSeen(tx *bolt.Tx, surt, digest string) (firstSeen, bool, error) {
	v := tx.Bucket(bucketFirstSeen).Get(firstSeenKey(surt, digest))
	if v == nil {
		return firstSeen{}, false, nil
	}
	var fs firstSeen
	if err := json.Unmarshal(v, &fs); err != nil {
		return firstSeen{}, false, fmt.Errorf("index firstseen %s %s: %w", surt, digest, err)
	}
	return fs, true, nil
}

func countKey(s CaptureState) []byte { return []byte("count/" + s.String()) }

// addCount adjusts the number of captures in state s.
func addCount(tx *bolt.Tx, s CaptureState, d int64) error {
	b := tx.Bucket(bucketMeta)
	var n int64
	if v := b.Get(countKey(s)); len(v) == 8 {
		n = int64(binary.BigEndian.Uint64(v))
	}
	v := make([]byte, 8)
	binary.BigEndian.PutUint64(v, uint64(n+d))
	return b.Put(countKey(s), v)
}

func getCount(tx *bolt.Tx, s CaptureState) int {
	if v := tx.Bucket(bucketMeta).Get(countKey(s)); len(v) == 8 {
		return int(binary.BigEndian.Uint64(v))
	}
	return 0
}

// setFileEnd records how far a WARC file holds committed records.
func setFileEnd(tx *bolt.Tx, file string, end int64) error {
	v := make([]byte, 8)
	binary.BigEndian.PutUint64(v, uint64(end))
	return tx.Bucket(bucketFiles).Put([]byte(file), v)
}

// fileEnd is how far a WARC file holds committed records (0, false when the index knows no such file).
func fileEnd(tx *bolt.Tx, file string) (int64, bool) {
	v := tx.Bucket(bucketFiles).Get([]byte(file))
	if len(v) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(v)), true
}

// Mark moves captures to new states in one transaction: a tombstoned capture leaves the embargoed
// bucket, a released one leaves the due bucket too. Marking a capture with its current state and
// location changes nothing; an unknown id fails the whole call.
func (ix *Index) Mark(marks []Mark) error {
	if len(marks) == 0 {
		return nil
	}
	return ix.update(func(tx *bolt.Tx) error {
		for _, m := range marks {
			if err := markOne(tx, m); err != nil {
				return err
			}
		}
		return nil
	})
}

func markOne(tx *bolt.Tx, m Mark) error {
	e, ok, err := getEntry(tx, m.ID)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("mark: the index holds no capture %s", m.ID)
	}
	if m.State < e.State {
		return fmt.Errorf("mark: capture %s is %s and cannot go back to %s", m.ID, e.State, m.State)
	}
	if m.State == e.State && m.Public == e.Public {
		return nil
	}
	k := timeIDKey(e.ReleaseAt, e.ID)
	if m.State != Sealed {
		if err := tx.Bucket(bucketEmbargoed).Delete(k); err != nil {
			return err
		}
	}
	if m.State == Released {
		if err := tx.Bucket(bucketDue).Delete(k); err != nil {
			return err
		}
	}
	if err := addCount(tx, e.State, -1); err != nil {
		return err
	}
	if err := addCount(tx, m.State, 1); err != nil {
		return err
	}
	e.State, e.Public = m.State, m.Public
	v, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketCaptures).Put([]byte(e.ID), v)
}
