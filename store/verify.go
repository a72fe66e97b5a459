package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/store/index"
	"github.com/nlnwa/gowarc/v3"
)

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
	contents, err := index.Check(path) // read only: verify never repairs
	if err != nil {
		return nil, err
	}
	indexed, ends, problems := contents.Entries, contents.Ends, contents.Problems
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
