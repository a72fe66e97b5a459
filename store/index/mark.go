package index

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Mark records that a release pass moved a capture to a new state.
type Mark struct {
	ID     string
	State  CaptureState
	Public Location
	// ReleaseAt, when set, is the capture's release time as the index holds it (Entry.ReleaseAt):
	// Mark then finds the entry by its key, without a lookup by id. It is not part of a Mark's JSON.
	ReleaseAt time.Time `json:"-"`
}

// Mark moves captures to new states in one transaction, in key order: a capture leaves the bucket
// of its old state for that of the new one, with its public location. Marking a capture with its
// current state and location changes nothing; an unknown id or a step back fails the whole call.
// Marks that carry ReleaseAt cost no lookup by id, so a commit's marks touch only the pages of
// the captures they move.
func (ix *Index) Mark(marks []Mark) error {
	if len(marks) == 0 {
		return nil
	}
	return ix.update(func(tx *bolt.Tx) error { return markAll(newCodec(tx), marks) })
}

// markJob is one mark with the key of its entry.
type markJob struct {
	m   *Mark
	idk []byte
	key []byte // entryKey, nil until known
}

func markAll(c *codec, marks []Mark) error {
	jobs := make([]markJob, len(marks))
	var lookups []*markJob
	for i := range marks {
		m := &marks[i]
		j := &jobs[i]
		j.m, j.idk = m, idKey(m.ID)
		if m.ReleaseAt.IsZero() {
			lookups = append(lookups, j)
		} else {
			j.key = append(timeKey(m.ReleaseAt), j.idk...)
		}
	}
	// Marks without a release time are resolved through the ids bucket, in id order.
	slices.SortFunc(lookups, func(a, b *markJob) int { return bytes.Compare(a.idk, b.idk) })
	for _, j := range lookups {
		if err := resolve(c.tx, j); err != nil {
			return err
		}
	}
	slices.SortStableFunc(jobs, func(a, b markJob) int { return bytes.Compare(a.key, b.key) })
	var delta [len(stateBuckets)]int64
	for i := range jobs {
		from, to, err := markOne(c, &jobs[i])
		if err != nil {
			return err
		}
		delta[from]--
		delta[to]++
	}
	for s, d := range delta {
		if err := addCount(c.tx, CaptureState(s), d); err != nil {
			return err
		}
	}
	return nil
}

// resolve finds a mark's entry key through the ids bucket.
func resolve(tx *bolt.Tx, j *markJob) error {
	rk := tx.Bucket(bucketIDs).Get(j.idk)
	if len(rk) != 12 {
		return fmt.Errorf("mark: the index holds no capture %s", j.m.ID)
	}
	j.key = append(bytes.Clone(rk), j.idk...)
	return nil
}

// markOne applies one mark and returns the states it moved the capture between (equal when
// nothing changed).
func markOne(c *codec, j *markJob) (from, to CaptureState, err error) {
	m := j.m
	e, ok, err := getAt(c, j.key)
	if err == nil && !ok && !m.ReleaseAt.IsZero() {
		// A release time that is not the indexed one: look the id up instead.
		if err = resolve(c.tx, j); err == nil {
			e, ok, err = getAt(c, j.key)
		}
	}
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return 0, 0, fmt.Errorf("mark: the index holds no capture %s", m.ID)
	}
	if int(m.State) >= len(stateBuckets) {
		return 0, 0, fmt.Errorf("mark: capture %s cannot go to unknown state %d", m.ID, m.State)
	}
	if m.State < e.State {
		return 0, 0, fmt.Errorf("mark: capture %s is %s and cannot go back to %s", m.ID, e.State, m.State)
	}
	if m.State == e.State && m.Public == e.Public {
		return e.State, e.State, nil
	}
	from = e.State
	e.State, e.Public = m.State, m.Public
	v, err := c.encode(nil, &e)
	if err != nil {
		return 0, 0, err
	}
	if from != e.State {
		if err := c.tx.Bucket(stateBuckets[from]).Delete(j.key); err != nil {
			return 0, 0, err
		}
	}
	b := c.tx.Bucket(stateBuckets[e.State])
	b.FillPercent = 0.7 // as in putEntries
	if err := b.Put(j.key, v); err != nil {
		return 0, 0, err
	}
	return from, e.State, nil
}
