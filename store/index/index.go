package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/internal/oneline"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// schemaVersion is the layout of index.db this code reads and writes. Schema 1 (JSON entries in a
// captures bucket keyed by id, with due and embargoed key-only buckets) is upgraded on open.
const schemaVersion = 2

// The buckets of index.db. The three state buckets hold the entries themselves, keyed in release
// order, so that a release pass reads what is due sequentially and nothing else.
var (
	bucketMeta       = []byte("meta")       // "schema" → version; "count/<state>" → uint64
	bucketSealed     = []byte("sealed")     // entryKey → entry, captures with nothing public yet
	bucketTombstoned = []byte("tombstoned") // entryKey → entry, captures with a public tombstone
	bucketReleased   = []byte("released")   // entryKey → entry, released captures
	bucketIDs        = []byte("ids")        // idKey → timeKey(ReleaseAt)
	bucketURLs       = []byte("urls")       // SURT ‖ 0x00 ‖ timeKey(capture time) ‖ idKey → timeKey(ReleaseAt)
	bucketFirstSeen  = []byte("firstseen")  // SURT ‖ 0x00 ‖ digest (appendDigest) → entryKey of the representation's first capture
	bucketFiles      = []byte("files")      // WARC file name → committed end offset (8 bytes BE)
	bucketNames      = []byte("names")      // the file names entries refer to by number (codec)

	allBuckets   = [][]byte{bucketMeta, bucketSealed, bucketTombstoned, bucketReleased, bucketIDs, bucketURLs, bucketFirstSeen, bucketFiles, bucketNames}
	stateBuckets = [...][]byte{Sealed: bucketSealed, Tombstoned: bucketTombstoned, Released: bucketReleased}
	keySchema    = []byte("schema")
)

// Index is the sealed index, index.db. It opens the bbolt file per operation (open, one
// transaction, close) with a lock timeout, so a crawl that runs for hours never blocks a release pass.
type Index struct {
	path    string
	timeout time.Duration
	noSync  bool // commits are not synced (SetNoSync); Sync makes them durable
}

// Open prepares the index at path, creating it (and its directory) when absent and checking its
// schema; an index of schema 1 is upgraded in place first (upgrade.go), logged on log. A lock
// held elsewhere for longer than timeout gives an error wrapping lockfile.ErrBusy.
func Open(path string, timeout time.Duration, log *slog.Logger) (*Index, error) {
	if timeout <= 0 {
		timeout = lockfile.DefaultTimeout
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	ix := &Index{path: path, timeout: timeout}
	schema, err := ix.schema()
	if err != nil {
		return nil, err
	}
	switch schema {
	case 0:
		err = ix.update(initBuckets)
	case 1:
		err = ix.upgrade(log)
	case schemaVersion:
		err = removeStaleUpgrade(path)
	default:
		err = fmt.Errorf("%s has index schema %d, this archivectl reads %d; rebuild it with archivectl verify --reindex", path, schema, schemaVersion)
	}
	if err != nil {
		return nil, err
	}
	return ix, nil
}

// Path is the index file's path.
func (ix *Index) Path() string { return ix.path }

// schema reads the index's schema version without writing: 0 for an absent or empty file, or
// one holding a schema 2 layout short of a bucket (an index being created).
func (ix *Index) schema() (int, error) {
	if st, err := os.Stat(ix.path); errors.Is(err, fs.ErrNotExist) || err == nil && st.Size() == 0 {
		return 0, nil
	}
	var n int
	err := ix.view(func(tx *bolt.Tx) error {
		n = readSchema(tx)
		return nil
	})
	return n, err
}

// readSchema is the schema of an open index: 0 when it has none yet, -1 when it is unreadable.
func readSchema(tx *bolt.Tx) int {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return 0
	}
	v := meta.Get(keySchema)
	if v == nil {
		return 0
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return -1
	}
	if n == schemaVersion {
		for _, b := range allBuckets {
			if tx.Bucket(b) == nil {
				return 0
			}
		}
	}
	return n
}

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

// ErrIndexDamaged is wrapped by the error of every index operation that finds index.db damaged:
// not a bbolt file, pages bbolt panics on, or values that do not decode. Only rebuilding it
// helps (archivectl verify --reindex, which moves the damaged file aside).
var ErrIndexDamaged = errors.New("index damaged")

// DamagedIndexError is a damaged index.db: which file, what was found, and the remedy.
type DamagedIndexError struct {
	Path string
	Err  error
}

func (e *DamagedIndexError) Error() string {
	return fmt.Sprintf("%s is damaged (%s): rebuild it from the sealed WARC files with archivectl verify --reindex, "+
		"which moves the damaged file aside and restores release states from public/", e.Path, oneline.Of(e.Err))
}

func (e *DamagedIndexError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrIndexDamaged) true.
func (e *DamagedIndexError) Is(target error) bool { return target == ErrIndexDamaged }

// damagedIndex is err as a *DamagedIndexError when it says the index at path is damaged (bbolt
// refuses the file, or a value does not decode), else err.
func damagedIndex(path string, err error) error {
	var de *DamagedIndexError
	switch {
	case err == nil || errors.As(err, &de):
		return err
	case errors.Is(err, errCorrupt), errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrInvalidMapping),
		errors.Is(err, berrors.ErrIncompatibleValue): // a bucket where a value belongs, or the reverse: a flipped flag
		return &DamagedIndexError{Path: path, Err: err}
	}
	return err
}

// openError is bolt.Open's error for path: a lock timeout as a lockfile.BusyError, a file bbolt
// refuses (not a bbolt file, too small, bad meta pages: any error that is not the file system's) as
// a *DamagedIndexError.
func openError(path string, err error) error {
	var pe *fs.PathError
	var errno syscall.Errno
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return lockfile.Busy(path)
	case errors.As(err, &pe), errors.As(err, &errno):
		return fmt.Errorf("open index %s: %w", path, err)
	}
	return &DamagedIndexError{Path: path, Err: err}
}

// withBolt opens the bbolt file at path and runs fn on it, then closes it. bbolt panics on
// pages it finds corrupt, and faults reading past a truncated file: withBolt turns both (with
// debug.SetPanicOnFault) into a *DamagedIndexError, and closes the file bbolt opened so that its
// lock is released. A panic in fn becomes the same error; its stack is logged at debug level.
// When fn returns errKeepOpen, the DB stays open.
func withBolt(path string, opt bolt.Options, fn func(*bolt.DB) error) (err error) {
	var file *os.File
	opt.OpenFile = func(name string, flag int, mode os.FileMode) (*os.File, error) {
		f, err := os.OpenFile(name, flag, mode)
		file = f
		return f, err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			slog.Debug("index.db: bbolt panicked", "path", path, "panic", r, "stack", string(debug.Stack()))
			if file != nil {
				file.Close() // the DB cannot be closed: a panicked transaction keeps its locks
			}
			err = &DamagedIndexError{Path: path, Err: fmt.Errorf("bbolt: %v", r)}
		}
	}()
	db, err := bolt.Open(path, 0o600, &opt)
	if err != nil {
		return openError(path, err)
	}
	if err := checkMetaPages(file); err != nil {
		db.Close()
		return &DamagedIndexError{Path: path, Err: err}
	}
	err = fn(db)
	if errors.Is(err, errKeepOpen) {
		return err
	}
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close index: %w", cerr)
	}
	return damagedIndex(path, err)
}

// open opens the bbolt file for a caller that keeps it open (PrepareMark), mapping a lock timeout to
// a lockfile.BusyError and a refused file to a *DamagedIndexError.
func (ix *Index) open(readOnly bool) (*bolt.DB, error) {
	db, err := bolt.Open(ix.path, 0o600, &bolt.Options{Timeout: ix.timeout, ReadOnly: readOnly, NoSync: ix.noSync, NoGrowSync: ix.noSync})
	if err != nil {
		return nil, openError(ix.path, err)
	}
	return db, nil
}

// checkMetaPages checks both meta pages of the bbolt file f (bbolt's format version 2: a 16-byte
// page header, then magic, version, page size, …, and an FNV-64a checksum of the 56 bytes before
// it, in the machine's byte order as bbolt writes them). bbolt reads a file with one bad meta page from the other one, silently: the index is then
// back at the commit before the last, and a release pass would publish again what it had already
// published. That is damage as much as a page bbolt panics on.
func checkMetaPages(f *os.File) error {
	pageSize := int64(0)
	for i := range int64(2) {
		var b [16 + 64]byte
		if _, err := f.ReadAt(b[:], i*pageSize); err != nil {
			return fmt.Errorf("meta page %d: %w", i, err)
		}
		m := b[16:]
		h := fnv.New64a()
		h.Write(m[:56])
		if binary.NativeEndian.Uint32(m) != 0xED0CDAED || binary.NativeEndian.Uint32(m[4:]) != 2 || binary.NativeEndian.Uint64(m[56:]) != h.Sum64() {
			return fmt.Errorf("meta page %d is invalid (bbolt would silently fall back to the other, older one)", i)
		}
		pageSize = int64(binary.NativeEndian.Uint32(m[8:]))
	}
	return nil
}

// errKeepOpen, returned by withBolt's fn, leaves the DB open for the caller, who closes it.
var errKeepOpen = errors.New("keep the index open")

// run runs fn in one transaction of a freshly opened index, read-write unless readOnly.
func (ix *Index) run(readOnly bool, fn func(*bolt.Tx) error) error {
	l := lockfile.InProcessOf(ix.path)
	if err := l.Acquire(ix.timeout); err != nil {
		return err
	}
	defer l.Release()
	opt := bolt.Options{Timeout: ix.timeout, ReadOnly: readOnly, NoSync: ix.noSync, NoGrowSync: ix.noSync}
	return withBolt(ix.path, opt, func(db *bolt.DB) error {
		if readOnly {
			return db.View(fn)
		}
		return db.Update(fn)
	})
}

// update runs fn in one read-write transaction of a freshly opened index.
func (ix *Index) update(fn func(*bolt.Tx) error) error { return ix.run(false, fn) }

// SetNoSync leaves the commits from now on unsynced (a bulk load, the repository's
// Options.BulkLoad) or, false, syncs each again; Sync makes the unsynced ones durable.
func (ix *Index) SetNoSync(noSync bool) { ix.noSync = noSync }

// Durable reports whether each commit is synced as it is made (SetNoSync).
func (ix *Index) Durable() bool { return !ix.noSync }

// Sync makes every commit made so far durable (they are not, after SetNoSync).
func (ix *Index) Sync() error {
	f, err := os.Open(ix.path)
	if err != nil {
		return fmt.Errorf("sync index: %w", err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync index: %w", err)
	}
	return nil
}

// view runs fn in one read-only transaction of a freshly opened index.
func (ix *Index) view(fn func(*bolt.Tx) error) error { return ix.run(true, fn) }

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

// urlKey is the key of the urls bucket.
func urlKey(surt string, t time.Time, id string) []byte {
	k := append([]byte(surt), 0)
	return appendIDKey(append(k, timeKey(t)...), id)
}

// firstSeenKey is the key of the firstseen bucket.
func firstSeenKey(surt, digest string) []byte {
	return appendDigest(append([]byte(surt), 0), digest)
}

// getEntry reads one capture's entry by id: its release key from the ids bucket, then its entry.
func getEntry(c *codec, id string) (Entry, bool, error) {
	idk := idKey(id)
	rk := c.tx.Bucket(bucketIDs).Get(idk)
	if len(rk) != 12 {
		return Entry{}, false, nil
	}
	return getAt(c, append(bytes.Clone(rk), idk...))
}

// getAt reads the entry under an entryKey, whichever state bucket holds it.
func getAt(c *codec, k []byte) (Entry, bool, error) {
	for s := Sealed; s <= Released; s++ {
		if v := c.tx.Bucket(stateBuckets[s]).Get(k); v != nil {
			e, err := c.decode(s, k, v)
			return e, err == nil, err
		}
	}
	return Entry{}, false, nil
}

// lookupFirstSeen returns the first capture of a representation, if any.
func lookupFirstSeen(c *codec, surt, digest string) (Entry, bool, error) {
	v := c.tx.Bucket(bucketFirstSeen).Get(firstSeenKey(surt, digest))
	if v == nil {
		return Entry{}, false, nil
	}
	return getAt(c, v)
}

// deleteFirstSeen forgets e as the first capture of its representation, if it is.
func deleteFirstSeen(tx *bolt.Tx, e Entry) error {
	k := firstSeenKey(e.SURT, e.PayloadDigest)
	if v := tx.Bucket(bucketFirstSeen).Get(k); !bytes.Equal(v, entryKey(e.ReleaseAt, e.ID)) {
		return nil
	}
	return tx.Bucket(bucketFirstSeen).Delete(k)
}

func countKey(s CaptureState) []byte { return []byte("count/" + s.String()) }

// addCount adjusts the number of captures in state s.
func addCount(tx *bolt.Tx, s CaptureState, d int64) error {
	if d == 0 {
		return nil
	}
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

// WriteTo writes a consistent copy of index.db to w (bbolt's Tx.WriteTo in one read
// transaction): a file that opens as this index did at one commit.
func (ix *Index) WriteTo(w io.Writer) (n int64, err error) {
	err = ix.view(func(tx *bolt.Tx) error {
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("snapshot of index.db: %w", err)
	}
	return n, nil
}
