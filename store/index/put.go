package index

import (
	"bytes"
	"fmt"
	"slices"
	"time"
)

// putEntry stores a new capture's entry and every key that points at it, and counts it.
func putEntry(c *codec, e Entry) error { return putEntries(c, []Entry{e}) }

// putEntries stores new captures' entries and every key that points at them, and counts them.
// Each bucket gets its keys in key order, so that a batch walks each B+tree once, left to right.
func putEntries(c *codec, es []Entry) error {
	tx := c.tx
	type put struct {
		k, v []byte
		e    *Entry
	}
	puts := make([]put, len(es))
	var delta [len(stateBuckets)]int64
	for i := range es {
		e := &es[i]
		if int(e.State) >= len(stateBuckets) {
			return fmt.Errorf("capture %s has unknown state %d", e.ID, e.State)
		}
		v, err := c.encode(nil, e)
		if err != nil {
			return err
		}
		puts[i] = put{k: append(timeKey(e.ReleaseAt), idKey(e.ID)...), v: v, e: e}
		delta[e.State]++
	}
	// ids: idKey → timeKey(ReleaseAt), both halves of the entry key.
	slices.SortFunc(puts, func(a, b put) int { return bytes.Compare(a.k[12:], b.k[12:]) })
	ids := tx.Bucket(bucketIDs)
	for i, p := range puts {
		if ids.Get(p.k[12:]) != nil || i > 0 && bytes.Equal(puts[i-1].k[12:], p.k[12:]) {
			return fmt.Errorf("index already holds capture %s", p.e.ID)
		}
		if err := ids.Put(p.k[12:], p.k[:12]); err != nil {
			return err
		}
	}
	slices.SortFunc(puts, func(a, b put) int { return bytes.Compare(a.k, b.k) })
	for _, p := range puts {
		b := tx.Bucket(stateBuckets[p.e.State])
		b.FillPercent = 0.7 // release keys mostly arrive in order; a past Last-Modified puts some among earlier ones
		if err := b.Put(p.k, p.v); err != nil {
			return err
		}
	}
	for i, p := range puts {
		puts[i].v = urlKey(p.e.SURT, p.e.Time, p.e.ID)
	}
	slices.SortFunc(puts, func(a, b put) int { return bytes.Compare(a.v, b.v) })
	urls := tx.Bucket(bucketURLs)
	for _, p := range puts {
		if err := urls.Put(p.v, p.k[:12]); err != nil {
			return err
		}
	}
	for i, p := range puts {
		puts[i].v = nil
		if !p.e.Revisit {
			puts[i].v = firstSeenKey(p.e.SURT, p.e.PayloadDigest)
		}
	}
	slices.SortFunc(puts, func(a, b put) int { return bytes.Compare(a.v, b.v) })
	for _, p := range puts {
		if p.v != nil {
			if err := noteFirstSeen(c, p.v, p.k, p.e.Time); err != nil {
				return err
			}
		}
	}
	for s, d := range delta {
		if err := addCount(tx, CaptureState(s), d); err != nil {
			return err
		}
	}
	return nil
}

// noteFirstSeen records the capture at entry key ek, captured at t, as the first capture of its
// representation (firstseen key k) unless an earlier one is known.
func noteFirstSeen(c *codec, k, ek []byte, t time.Time) error {
	b := c.tx.Bucket(bucketFirstSeen)
	if v := b.Get(k); v != nil {
		if first, ok, err := getAt(c, v); err != nil || ok && !t.Before(first.Time) {
			return err
		}
	}
	return b.Put(k, ek)
}
