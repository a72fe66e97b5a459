package index

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Counts is how many captures the index holds in each state, and how many are due but unreleased.
type Counts struct {
	Sealed     int `json:"sealed"`
	Tombstoned int `json:"tombstoned"`
	Released   int `json:"released"`
	Backlog    int `json:"backlog"` // ReleaseAt ≤ now and not yet released
}

// scanBatch is how many entries a scan reads per transaction; callbacks run with the index closed,
// so they may call Mark or Get.
const scanBatch = 512

// readFunc reads entries in key order from the first key ≥ from (> from unless inclusive), calling
// add for each until it returns false; add's key is the scan's position.
type readFunc func(c *codec, from []byte, inclusive bool, add func(k []byte, e Entry) bool) error

// scan runs read in batches of scanBatch entries, one read transaction each, and calls fn for
// every entry with the index closed.
func (ix *Index) scan(read readFunc, fn func(Entry) error) error {
	var from []byte
	inclusive := true
	for {
		var batch []Entry
		var last []byte
		full := false
		err := ix.view(func(tx *bolt.Tx) error {
			batch, last, full = batch[:0], nil, false
			return read(newCodec(tx), from, inclusive, func(k []byte, e Entry) bool {
				batch = append(batch, e)
				last = bytes.Clone(k)
				full = len(batch) == scanBatch
				return !full
			})
		})
		if err != nil {
			return err
		}
		for _, e := range batch {
			if err := fn(e); err != nil {
				return err
			}
		}
		if !full {
			return nil
		}
		from, inclusive = last, false
	}
}

// stateRead reads the state buckets of states merged in key order (release order), while keep(key).
func stateRead(states []CaptureState, keep func(k []byte) bool) readFunc {
	return stateReadSkip(states, keep, nil)
}

// stateReadSkip is stateRead stepping over, undecoded, the entries whose encoded value skip
// reports (nil: none).
func stateReadSkip(states []CaptureState, keep func(k []byte) bool, skip func(v []byte) bool) readFunc {
	return func(c *codec, from []byte, inclusive bool, add func([]byte, Entry) bool) error {
		type cur struct {
			s    CaptureState
			c    *bolt.Cursor
			k, v []byte
		}
		curs := make([]*cur, len(states))
		for i, s := range states {
			cu := &cur{s: s, c: c.tx.Bucket(stateBuckets[s]).Cursor()}
			cu.k, cu.v = cu.c.Seek(from)
			if !inclusive && cu.k != nil && bytes.Equal(cu.k, from) {
				cu.k, cu.v = cu.c.Next()
			}
			curs[i] = cu
		}
		for {
			var first *cur
			for _, cu := range curs {
				if cu.k != nil && (first == nil || bytes.Compare(cu.k, first.k) < 0) {
					first = cu
				}
			}
			if first == nil || !keep(first.k) {
				return nil
			}
			if skip != nil && skip(first.v) {
				first.k, first.v = first.c.Next()
				continue
			}
			e, err := c.decode(first.s, first.k, first.v)
			if err != nil {
				return err
			}
			if !add(first.k, e) {
				return nil
			}
			first.k, first.v = first.c.Next()
		}
	}
}

// pending are the states of captures not yet released.
var pending = []CaptureState{Sealed, Tombstoned}

// Due calls fn, in release order, for every unreleased capture with ReleaseAt ≤ now
// (embargo.Releasable, as a range of keys: a key holds the release time). It reads only the
// entries it yields, in key order; fn runs with the index closed and may call Mark.
func (ix *Index) Due(now time.Time, fn func(Entry) error) error {
	hi := timeKey(now)
	return ix.scan(stateRead(pending, func(k []byte) bool { return bytes.Compare(k[:12], hi) <= 0 }), fn)
}

// Embargoed calls fn, in release order, for every capture still Sealed whose ReleaseAt is after now:
// the captures that need a tombstone. A requisite withheld for its page (Entry.Withheld) needs
// none: it is stepped over without being decoded, and stays Sealed until Due yields it
// (docs/rules.md#d27). fn runs with the index closed and may call Mark.
func (ix *Index) Embargoed(now time.Time, fn func(Entry) error) error {
	start := timeKey(now.Add(time.Nanosecond))
	read := stateReadSkip([]CaptureState{Sealed}, func([]byte) bool { return true }, withheldValue)
	return ix.scan(func(c *codec, from []byte, inclusive bool, add func([]byte, Entry) bool) error {
		if from == nil {
			from = start
		}
		return read(c, from, inclusive, add)
	}, fn)
}

// Tombstoned calls fn, in release order, for every capture with a public tombstone and not yet
// released. It reads only those entries; fn runs with the index closed and may call Mark.
func (ix *Index) Tombstoned(fn func(Entry) error) error {
	return ix.scan(stateRead([]CaptureState{Tombstoned}, func([]byte) bool { return true }), fn)
}

// ByURL calls fn for every capture of the URL with this SURT key, oldest first.
func (ix *Index) ByURL(surt string, fn func(Entry) error) error {
	prefix := append([]byte(surt), 0)
	return ix.scan(func(c *codec, from []byte, inclusive bool, add func([]byte, Entry) bool) error {
		if from == nil {
			from = prefix
		}
		cu := c.tx.Bucket(bucketURLs).Cursor()
		k, rk := cu.Seek(from)
		if !inclusive && k != nil && bytes.Equal(k, from) {
			k, rk = cu.Next()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix); k, rk = cu.Next() {
			if len(k) < len(prefix)+13 || len(rk) != 12 {
				return fmt.Errorf("index: bad urls key %q: %w", k, errCorrupt)
			}
			e, ok, err := getAt(c, append(bytes.Clone(rk), k[len(prefix)+12:]...))
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("index: urls points at missing capture %x: %w", k[len(prefix)+12:], errCorrupt)
			}
			if !add(k, e) {
				return nil
			}
		}
		return nil
	}, fn)
}

// Each calls fn for every capture the index holds, in release order; fn runs with the index closed.
func (ix *Index) Each(fn func(Entry) error) error {
	return ix.scan(stateRead([]CaptureState{Sealed, Tombstoned, Released}, func([]byte) bool { return true }), fn)
}

// Get returns one capture's entry.
func (ix *Index) Get(id string) (e Entry, ok bool, err error) {
	err = ix.view(func(tx *bolt.Tx) error {
		e, ok, err = getEntry(newCodec(tx), id)
		return err
	})
	return e, ok, err
}

// GetMany returns the entries of the ids the index holds, read in one transaction in key order;
// unknown ids are absent.
func (ix *Index) GetMany(ids []string) (map[string]Entry, error) {
	m := make(map[string]Entry, len(ids))
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, func(a, b string) int { return bytes.Compare(idKey(a), idKey(b)) })
	err := ix.view(func(tx *bolt.Tx) error {
		c := newCodec(tx)
		for _, id := range sorted {
			e, ok, err := getEntry(c, id)
			if err != nil {
				return err
			}
			if ok {
				m[id] = e
			}
		}
		return nil
	})
	return m, err
}

// Next is the earliest ReleaseAt after now among unreleased captures; ok is false when there is none.
func (ix *Index) Next(now time.Time) (t time.Time, ok bool, err error) {
	from := timeKey(now.Add(time.Nanosecond))
	err = ix.view(func(tx *bolt.Tx) error {
		for _, s := range pending {
			k, _ := tx.Bucket(stateBuckets[s]).Cursor().Seek(from)
			if k != nil && (!ok || keyTime(k).Before(t)) {
				t, ok = keyTime(k), true
			}
		}
		return nil
	})
	return t, ok, err
}

// Counts is how many captures are in each state, and how many are due at now but unreleased.
func (ix *Index) Counts(now time.Time) (n Counts, err error) {
	hi := timeKey(now)
	err = ix.view(func(tx *bolt.Tx) error {
		n.Sealed, n.Tombstoned, n.Released = getCount(tx, Sealed), getCount(tx, Tombstoned), getCount(tx, Released)
		for _, s := range pending {
			c := tx.Bucket(stateBuckets[s]).Cursor()
			for k, _ := c.First(); k != nil && bytes.Compare(k[:12], hi) <= 0; k, _ = c.Next() {
				n.Backlog++
			}
		}
		return nil
	})
	return n, err
}

// withheldPrefix is how an encoded entry of a withheld requisite starts, after its flags byte:
// its EmbargoSource, SourceRequisite (entrycodec.go: sourceOther and the string).
var withheldPrefix = appendSource(nil, SourceRequisite)

// withheldValue reports, from its encoded value alone, whether an entry is withheld.
func withheldValue(v []byte) bool {
	return len(v) > 2 && v[0] == entryLayoutSource && bytes.HasPrefix(v[2:], withheldPrefix)
}
