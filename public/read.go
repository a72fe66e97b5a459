package public

import (
	"bufio"
	"fmt"
	"io/fs"

	"github.com/archivectl/archivectl/internal/layout"
)

// CDXJFiles lists the CDXJ indexes of the public directory fsys, relative to it: those under
// shards/, then those under tombstones/, each in name order. Files still being written (.tmp,
// .open) are never listed.
func CDXJFiles(fsys fs.FS) ([]string, error) {
	var names []string
	for _, dir := range []string{layout.ShardsDir, layout.TombstonesDir} {
		m, err := fs.Glob(fsys, dir+"/*"+CDXJExt)
		if err != nil {
			return nil, fmt.Errorf("list public/%s: %w", dir, err)
		}
		names = append(names, m...)
	}
	return names, nil
}

// ReadCDXJ calls fn for every line of the CDXJ file name in the public directory fsys, in order;
// a line that does not parse, or is longer than MaxLineBytes, ends the read with an error naming
// the file (and the line).
func ReadCDXJ(fsys fs.FS, name string, fn func(Line) error) error {
	f, err := fsys.Open(name)
	if err != nil {
		return fmt.Errorf("read public/%s: %w", name, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), MaxLineBytes) // a longer line is an error (bufio.ErrTooLong)
	for n := 1; sc.Scan(); n++ {
		l, err := ParseLine(sc.Bytes())
		if err != nil {
			return fmt.Errorf("public/%s:%d: %w", name, n, err)
		}
		if err := fn(l); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read public/%s: %w", name, err)
	}
	return nil
}

// Captures reads every CDXJ file of the public directory fsys (CDXJFiles, ReadCDXJ) and returns
// each capture the public side shows once, in the order first read: its first released line
// when it has one, else its last tombstone line (a capture still embargoed).
func Captures(fsys fs.FS) ([]Line, error) {
	names, err := CDXJFiles(fsys)
	if err != nil {
		return nil, err
	}
	var lines []Line
	at := map[string]int{} // id → index in lines
	for _, name := range names {
		err := ReadCDXJ(fsys, name, func(l Line) error {
			i, ok := at[l.ID]
			switch {
			case !ok:
				at[l.ID] = len(lines)
				lines = append(lines, l)
			case lines[i].State != StateReleased:
				lines[i] = l
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return lines, nil
}
