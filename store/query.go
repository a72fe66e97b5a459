package store

import (
	"bytes"
	"fmt"
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

// scan walks bucket from the first key ≥ start while keep(key) holds, loading the entries named by
// id(key) in batches and calling fn for each one with the index closed.
func (ix *Index) scan(bucket, start []byte, keep func(k []byte) bool, id func(k []byte) string, fn func(Entry) error) error {
	after := start
	inclusive := true
	for {
		var batch []Entry
		var last []byte
		done := true
		err := ix.view(func(tx *bolt.Tx) error {
			c := tx.Bucket(bucket).Cursor()
			k, _ := c.Seek(after)
			if !inclusive && k != nil && bytes.Equal(k, after) {
				k, _ = c.Next()
			}
			for ; k != nil && keep(k); k, _ = c.Next() {
				if len(batch) == scanBatch {
					done = false
					return nil
				}
				e, ok, err := getEntry(tx, id(k))
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("index: %s points at missing capture %q", bucket, id(k))
				}
				batch = append(batch, e)
				last = bytes.Clone(k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, e := range batch {
			if err := fn(e); err != nil {
				return err
			}
		}
		if done {
			return nil
		}
		after, inclusive = last, false
	}
}

func idAfterTime(k []byte) string { return string(k[12:]) }

// Due calls fn, in release order, for every unreleased capture with ReleaseAt ≤ now. Its cost grows
// with what is due, not with the archive; fn runs with the index closed and may call Mark.
func (ix *Index) Due(now time.Time, fn func(Entry) error) error {
	hi := timeKey(now)
	return ix.scan(bucketDue, nil, func(k []byte) bool { return bytes.Compare(k[:12], hi) <= 0 }, idAfterTime, fn)
}

// Embargoed calls fn, in release order, for every capture still Sealed whose ReleaseAt is after now:
// the captures that need a tombstone. fn runs with the index closed and may call Mark.
func (ix *Index) Embargoed(now time.Time, fn func(Entry) error) error {
	start := timeKey(now.Add(time.Nanosecond))
	return ix.scan(bucketEmbargoed, start, func([]byte) bool { return true }, idAfterTime, fn)
}

// ByURL calls fn for every capture of the URL with this SURT key, oldest first.
func (ix *Index) ByURL(surt string, fn func(Entry) error) error {
	prefix := append([]byte(surt), 0)
	return ix.scan(bucketURLs, prefix, func(k []byte) bool { return bytes.HasPrefix(k, prefix) },
		func(k []byte) string { return string(k[len(prefix)+12:]) }, fn)
}

// Get returns one capture's entry.
func (ix *Index) Get(id string) (e Entry, ok bool, err error) {
	err = ix.view(func(tx *bolt.Tx) error {
		e, ok, err = getEntry(tx, id)
		return err
	})
	return e, ok, err
}

// GetMany returns the entries of the ids the index holds, read in one transaction; unknown ids are absent.
func (ix *Index) GetMany(ids []string) (map[string]Entry, error) {
	m := make(map[string]Entry, len(ids))
	err := ix.view(func(tx *bolt.Tx) error {
		for _, id := range ids {
			e, ok, err := getEntry(tx, id)
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
	err = ix.view(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucketDue).Cursor().Seek(timeKey(now.Add(time.Nanosecond)))
		if k != nil {
			t, ok = keyTime(k), true
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
		c := tx.Bucket(bucketDue).Cursor()
		for k, _ := c.First(); k != nil && bytes.Compare(k[:12], hi) <= 0; k, _ = c.Next() {
			n.Backlog++
		}
		return nil
	})
	return n, err
}
