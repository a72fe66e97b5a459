package public

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
)

// MergeEmbargoed copies a day's tombstone lines (public/embargoed/embargoed-YYYYMMDD.cdxj, sorted
// bytewise) from r to w, leaving out the lines of the capture ids in remove and adding the lines
// of add (capture id → line, newline included) where their order puts them; a line of add
// replaces the line of the same id in r. One sequential pass: its cost is the day's lines. Every
// line of r must parse (Parse) and come after the one before it; a line longer than MaxLineBytes
// is malformed.
func MergeEmbargoed(r io.Reader, w io.Writer, add map[string][]byte, remove map[string]bool) error {
	adds := slices.SortedFunc(maps.Values(add), bytes.Compare)
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	var prev, line, id []byte
	for n := 1; ; n++ {
		var err error
		if line, err = readLine(br, line[:0]); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if len(line) > MaxLineBytes {
			return fmt.Errorf("line %d: %w", n, ErrLineTooLong)
		}
		if prev != nil && bytes.Compare(prev, line) >= 0 {
			return fmt.Errorf("line %d: not in byte order, or repeated", n)
		}
		prev = append(prev[:0], line...)
		raw, err := Parse(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if id, err = raw.Block.AppendID(id[:0]); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if remove[string(id)] || add[string(id)] != nil {
			continue
		}
		for len(adds) > 0 && bytes.Compare(adds[0], line) < 0 {
			if _, err := bw.Write(adds[0]); err != nil {
				return err
			}
			adds = adds[1:]
		}
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	for _, a := range adds {
		if _, err := bw.Write(a); err != nil {
			return err
		}
	}
	return bw.Flush()
}
