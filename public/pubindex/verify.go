package pubindex

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"

	"github.com/archivectl/archivectl/public"
	"github.com/cespare/xxhash/v2"
)

// Verify checks the index of the public directory fsys against its CDXJ files: every segment
// opens and every block reads back (checksums), the segments hold exactly the well-formed
// lines of the CDXJ files, and the manifest's totals are those of those lines. It returns one
// line per problem; a damaged index is one problem, naming the file and the rebuild command.
func Verify(fsys fs.FS) ([]string, error) {
	set, err := Open(fsys, nil)
	var d *DamageError
	if errors.As(err, &d) {
		return []string{d.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	defer set.Close()
	for _, seg := range set.segs {
		if err := seg.Check(); err != nil {
			return []string{err.Error()}, nil
		}
	}
	count := map[uint64]int{} // line hash → CDXJ lines less index lines
	names, err := public.CDXJFiles(fsys)
	if err != nil {
		return nil, err
	}
	cdxj := 0
	for _, name := range names {
		n, err := hashLines(fsys, name, count)
		if err != nil {
			return nil, err
		}
		cdxj += n
	}
	t := &tally{days: map[int64]int64{}}
	var problems []string
	unfound := 0 // keys whose exact lookup (key table, records) disagrees with their lines
	err = set.Scan("", func(key []byte, lines [][]byte) (bool, error) {
		for _, l := range lines {
			count[xxhash.Sum64(l)]--
		}
		merged := Merge(lines)
		t.add(merged, +1)
		var found []Capture
		err := set.Captures(string(key), func(cs []Capture) error {
			found = cs // compared before Captures returns: the views are valid during fn only
			if len(cs) != len(merged) || len(cs) > 0 && !reflect.DeepEqual(cs, merged) {
				unfound++
			}
			return nil
		})
		if found == nil && len(merged) > 0 {
			unfound++
		}
		return true, err
	})
	if errors.As(err, &d) {
		return append(problems, d.Error()), nil
	}
	if err != nil {
		return nil, err
	}
	if unfound > 0 {
		problems = append(problems, fmt.Sprintf("public/%s: an exact lookup of %d keys does not give the captures of their lines; rebuild it with: archivectl reindex-public", Dir, unfound))
	}
	missing, extra := 0, 0
	for _, n := range count {
		if n > 0 {
			missing += n
		} else {
			extra -= n
		}
	}
	if missing+extra > 0 {
		problems = append(problems, fmt.Sprintf("public/%s: the index lacks %d of the %d well-formed lines of the public CDXJ files and holds %d they do not; rebuild it with: archivectl reindex-public", Dir, missing, cdxj, extra))
	}
	got, err := t.stats()
	want := set.Manifest.Stats
	want.Malformed = 0
	if err != nil || !reflect.DeepEqual(got, want) {
		problems = append(problems, fmt.Sprintf("public/%s/%s: its totals (%d released, %d embargoed, %d release days) are not those of its lines (%d, %d, %d); rebuild it with: archivectl reindex-public",
			Dir, ManifestFile, want.Released, want.Embargoed, len(want.Days), got.Released, got.Embargoed, len(got.Days)))
	}
	return problems, nil
}

// hashLines counts the well-formed lines of one CDXJ file into count, by hash.
func hashLines(fsys fs.FS, name string, count map[uint64]int) (int, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return 0, fmt.Errorf("public index: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	n := 0
	var buf []byte
	for {
		line, rerr := readLine(br)
		if len(line) > 0 {
			if r, err := ParseLine(line); err == nil {
				buf = append(append(buf[:0], Rekey(line, &r)...), '\n') // as the index holds it
				count[xxhash.Sum64(buf)]++
				n++
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, fmt.Errorf("public index: read public/%s: %w", name, rerr)
		}
	}
}
