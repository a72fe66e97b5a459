package index

import bolt "go.etcd.io/bbolt"

// Tx is one transaction of the index, for the repository that writes it: Seal decides first
// seen and revisits, puts a batch's entries and the files' committed ends in one, and recovery
// drops what a lost write left pointing past a file's valid data.
type Tx struct {
	tx *bolt.Tx
	c  *codec
}

// Update runs fn in one read-write transaction of a freshly opened index; fn's error rolls
// it back.
func (ix *Index) Update(fn func(*Tx) error) error {
	return ix.update(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx, c: newCodec(tx)}) })
}

// View runs fn in one read-only transaction of a freshly opened index.
func (ix *Index) View(fn func(*Tx) error) error {
	return ix.view(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx, c: newCodec(tx)}) })
}

// Get reads one capture's entry by id; ok is false when the index holds none.
func (t *Tx) Get(id string) (e Entry, ok bool, err error) { return getEntry(t.c, id) }

// FirstSeen returns the first capture of a representation (its SURT and payload digest), if
// the index holds one.
func (t *Tx) FirstSeen(surt, digest string) (e Entry, ok bool, err error) {
	return lookupFirstSeen(t.c, surt, digest)
}

// Put stores new captures' entries and every key that points at them, and counts them; a
// capture the index holds already fails the whole call.
func (t *Tx) Put(es []Entry) error { return putEntries(t.c, es) }

// Delete removes a capture and every key that points at it.
func (t *Tx) Delete(e Entry) error { return deleteEntry(t.tx, e) }

// Each calls fn for every entry of the index, state by state in release order.
func (t *Tx) Each(fn func(Entry) error) error { return eachEntry(t.c, fn) }

// SetFileEnd records how far a WARC file holds committed records.
func (t *Tx) SetFileEnd(file string, end int64) error { return setFileEnd(t.tx, file, end) }

// FileEnd is how far a WARC file holds committed records; ok is false when the index knows no
// such file.
func (t *Tx) FileEnd(file string) (end int64, ok bool) { return fileEnd(t.tx, file) }

// eachEntry calls fn for every entry of the index, state by state in release order.
func eachEntry(c *codec, fn func(Entry) error) error {
	for s := Sealed; s <= Released; s++ {
		err := c.tx.Bucket(stateBuckets[s]).ForEach(func(k, v []byte) error {
			e, err := c.decode(s, k, v)
			if err != nil {
				return err
			}
			return fn(e)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// deleteEntry removes a capture and every key that points at it.
func deleteEntry(tx *bolt.Tx, e Entry) error {
	for _, del := range []struct {
		b []byte
		k []byte
	}{
		{stateBuckets[e.State], entryKey(e.ReleaseAt, e.ID)},
		{bucketIDs, idKey(e.ID)},
		{bucketURLs, urlKey(e.SURT, e.Time, e.ID)},
	} {
		if err := tx.Bucket(del.b).Delete(del.k); err != nil {
			return err
		}
	}
	if err := deleteFirstSeen(tx, e); err != nil {
		return err
	}
	return addCount(tx, e.State, -1)
}
