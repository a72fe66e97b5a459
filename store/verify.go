package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/nlnwa/gowarc/v3"
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

// Verify checks the sealed side of dataDir: every record of every sealed WARC file reads strictly
// (syntax, Content-Length, block and payload digests); every index entry resolves to its request,
// response and metadata records and its facts match theirs; every sealed capture is indexed; and the
// index's own keys (due, embargoed, urls, counts) agree with its entries. Records past the committed
// end of a file still being written are not judged. It repairs nothing, but an index of schema 1
// is first upgraded as OpenIndex does. It returns each problem found; err is for failing to check
// at all.
func Verify(ctx context.Context, dataDir string) ([]Problem, error) {
	path := layout.Index(dataDir)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s has no index (%w); build it from the sealed WARCs with archivectl verify --reindex", dataDir, err)
	}
	ix := &Index{path: path, timeout: lockfile.DefaultTimeout} // read only: verify never repairs
	if schema, err := ix.schema(); err != nil {
		return nil, err
	} else if schema == 1 {
		if err := ix.upgrade(slog.Default()); err != nil {
			return nil, err
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
		return nil, err
	}
	rb := newRebuilder()
	if err := scanSealed(ctx, layout.Sealed(dataDir), ends, rb); err != nil {
		return nil, err
	}
	rebuilt, rbProblems := rb.finish()
	problems = append(problems, rbProblems...)

	found := map[string]Entry{}
	for _, e := range rebuilt {
		found[e.ID] = e
		if _, ok := indexed[e.ID]; !ok {
			problems = append(problems, Problem{File: e.Response.File, Offset: e.Response.Offset, ID: e.ID, What: "sealed capture is not indexed"})
		}
	}
	ids := slices.Sorted(maps.Keys(indexed))
	staleKeys := 0
	for _, id := range ids {
		e := indexed[id]
		if e.Robots && !embargo.RobotsExempt(e.URL) {
			problems = append(problems, Problem{File: e.Response.File, Offset: e.Response.Offset, ID: id, What: fmt.Sprintf(
				"%s is %s as robots.txt evidence, outside its origin's embargo and rules, but is not an origin's /robots.txt "+
					"(sealed by an archivectl before docs/rules.md#d23); release passes hold it back", e.URL, e.State)})
		}
		r, ok := found[id]
		if !ok && rb.lost[id] {
			continue // listed with the damaged record it lost
		}
		if !ok {
			what := "index entry does not resolve to a complete, valid capture in the sealed files"
			if f, err := OpenSealed(layout.Sealed(dataDir), e.Response.File); err != nil {
				what += " (its WARC file is missing)"
			} else {
				f.Close()
			}
			problems = append(problems, Problem{File: e.Response.File, Offset: e.Response.Offset, ID: id, What: what})
			continue
		}
		diff := entryDiff(e, r)
		if slices.Equal(diff, []string{"surt"}) {
			staleKeys++ // keyed by the SURT form of an earlier version: one line below, not one each
			continue
		}
		if len(diff) > 0 {
			problems = append(problems, Problem{File: e.Response.File, Offset: e.Response.Offset, ID: id,
				What: "index facts differ from the sealed records: " + strings.Join(diff, ", ")})
		}
	}
	if staleKeys > 0 {
		problems = append(problems, Problem{File: layout.IndexFile, What: fmt.Sprintf("%d captures are keyed by an older SURT form "+
			"(their revisits are not recognised, which only delays releases): run archivectl verify --reindex to recompute the keys", staleKeys)})
	}
	sort.SliceStable(problems, func(i, j int) bool {
		a, b := problems[i], problems[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Offset < b.Offset
	})
	return problems, nil
}

// scanSealed feeds every record of every sealed WARC file to rb, and every damaged stretch: the
// scan goes on at the next readable record, so damage costs only the records it hits. With ends,
// in a file still named .open only records within its committed end count (the rest belongs to a
// batch in flight or a killed writer); without, all its valid records do. rb lists the problems.
func scanSealed(ctx context.Context, dir string, ends map[string]int64, rb *rebuilder) error {
	names, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("sealed files: %w", err)
	}
	for _, d := range names {
		n := d.Name()
		open := strings.HasSuffix(n, ".warc.gz"+openSuffix)
		if d.IsDir() || !(open || strings.HasSuffix(n, ".warc.gz")) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		end, known := ends[strings.TrimSuffix(n, openSuffix)]
		if ends == nil {
			open = false // judge every record
		} else if open && !known {
			continue
		}
		err := ScanFileResync(filepath.Join(dir, n), func(loc Location, rec gowarc.WarcRecord) error {
			if open && loc.Offset+loc.Length > end {
				return errStop
			}
			rb.add(loc, rec)
			return nil
		}, func(d Damage) error {
			if open && d.Offset >= end {
				return errStop // a torn tail past the committed end: Open will cut it
			}
			rb.damaged(d)
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
	}
	return nil
}

// entryDiff names the JSON fields in which an index entry and the entry rebuilt from its records differ
// (the state and public location live only in the index; an index written before it kept the
// embargo source has none, which is no difference).
func entryDiff(indexed, rebuilt Entry) []string {
	indexed.State, indexed.Public = rebuilt.State, rebuilt.Public
	if indexed.EmbargoSource == "" {
		indexed.EmbargoSource = rebuilt.EmbargoSource
	}
	if len(indexed.Headers) == 0 && len(rebuilt.Headers) == 0 {
		indexed.Headers, rebuilt.Headers = nil, nil // the index keeps no difference between none and empty
	}
	a, b := entryFields(indexed), entryFields(rebuilt)
	var diff []string
	for k, v := range a {
		if !reflect.DeepEqual(v, b[k]) {
			diff = append(diff, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	return diff
}

func entryFields(e Entry) map[string]any {
	b, _ := json.Marshal(e)
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	_ = d.Decode(&m)
	return m
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
