package index

import (
	"fmt"
	"log/slog"
	"sort"

	"github.com/archivectl/archivectl/internal/lockfile"
	bolt "go.etcd.io/bbolt"
)

// Problem is one inconsistency between the sealed WARC files and the index, or one repair.
type Problem struct {
	File   string `json:"file,omitempty"`
	Offset int64  `json:"offset,omitempty"`
	ID     string `json:"id,omitempty"` // the capture id, when one is concerned
	What   string `json:"what"`
}

// String is the problem on one line.
func (p Problem) String() string {
	s := p.What
	if p.ID != "" {
		s = "capture " + p.ID + ": " + s
	}
	if p.File != "" {
		s = fmt.Sprintf("%s@%d: %s", p.File, p.Offset, s)
	}
	return s
}

// Contents is what Check read of an index: every entry by capture id, the committed end of every
// WARC file, and what is wrong within the index itself.
type Contents struct {
	Entries  map[string]Entry
	Ends     map[string]int64
	Problems []Problem // a capture indexed twice; keys (ids, urls, counts) that disagree with the entries
}

// Check reads the whole index at path and checks it against itself: every bucket there, the
// schema this code reads, each capture once, and its keys (ids, urls, counts) in agreement with
// its entries. It repairs nothing, but an index of schema 1 is first upgraded as Open does. err
// is for failing to read the index at all; what is wrong in it is listed in Problems.
func Check(path string) (Contents, error) {
	ix := &Index{path: path, timeout: lockfile.DefaultTimeout}
	if schema, err := ix.schema(); err != nil {
		return Contents{}, err
	} else if schema == 1 {
		if err := ix.upgrade(slog.Default()); err != nil {
			return Contents{}, err
		}
	}
	indexed := map[string]Entry{}
	ends := map[string]int64{}
	var problems []Problem
	err := ix.view(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if tx.Bucket(b) == nil {
				return fmt.Errorf("%s lacks bucket %s; rebuild it with archivectl verify --reindex", path, b)
			}
		}
		if v := string(tx.Bucket(bucketMeta).Get(keySchema)); v != fmt.Sprint(schemaVersion) {
			return fmt.Errorf("%s has index schema %q, this archivectl reads %d; rebuild it with archivectl verify --reindex", path, v, schemaVersion)
		}
		if err := eachEntry(newCodec(tx), func(e Entry) error {
			if other, dup := indexed[e.ID]; dup {
				problems = append(problems, Problem{ID: e.ID, What: fmt.Sprintf("indexed twice, %s and %s", other.State, e.State)})
			}
			indexed[e.ID] = e
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketFiles).ForEach(func(k, _ []byte) error {
			ends[string(k)], _ = fileEnd(tx, string(k))
			return nil
		}); err != nil {
			return err
		}
		problems = append(problems, checkKeys(tx, indexed)...)
		return nil
	})
	if err != nil {
		return Contents{}, err
	}
	return Contents{Entries: indexed, Ends: ends, Problems: problems}, nil
}

// checkKeys checks that the index's keys agree with its entries.
func checkKeys(tx *bolt.Tx, entries map[string]Entry) []Problem {
	var ps []Problem
	bad := func(id, what string) { ps = append(ps, Problem{ID: id, What: what}) }
	seen := map[string]bool{}
	_ = tx.Bucket(bucketIDs).ForEach(func(k, rk []byte) error {
		id, err := keyID(k)
		e, ok := entries[id]
		switch {
		case err != nil:
			bad("", fmt.Sprintf("ids bucket: %v", err))
		case !ok:
			bad(id, "ids key for a capture the index does not hold")
		case len(rk) != 12 || !keyTime(rk).Equal(e.ReleaseAt):
			bad(id, fmt.Sprintf("ids key points at release time %x, the entry's is %s", rk, e.ReleaseAt))
		}
		seen[id] = true
		return nil
	})
	urls := tx.Bucket(bucketURLs)
	var n [3]int
	for id, e := range entries {
		if !seen[id] {
			bad(id, "missing from the ids bucket")
		}
		if rk := urls.Get(urlKey(e.SURT, e.Time, e.ID)); rk == nil {
			bad(id, "missing from the urls bucket")
		} else if len(rk) != 12 || !keyTime(rk).Equal(e.ReleaseAt) {
			bad(id, fmt.Sprintf("urls key points at release time %x, the entry's is %s", rk, e.ReleaseAt))
		}
		if e.State <= Released {
			n[e.State]++
		}
	}
	for s := Sealed; s <= Released; s++ {
		if got := getCount(tx, s); got != n[s] {
			bad("", fmt.Sprintf("index counts %d %s captures, holds %d", got, s, n[s]))
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].ID < ps[j].ID })
	return ps
}
