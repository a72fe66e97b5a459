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

// idKey starts the capture id in a line's JSON block as FormatLine writes it. Within a JSON
// string every quote is escaped, so outside a nested object these bytes are the top-level key.
var idKey = []byte(`,"id":"`)

// lineID appends the capture id of a line to dst: read straight after idKey when no object opens
// before it in the block (as FormatLine writes a line), else by Parse.
func lineID(dst, line []byte) ([]byte, error) {
	if _, _, js, ok := split(bytes.TrimSuffix(line, []byte("\n"))); ok {
		if i := bytes.Index(js, idKey); i > 0 && bytes.IndexByte(js[1:i], '{') < 0 {
			start := i + len(idKey) - 1 // the opening quote
			if end, esc := scanString(js, start); end > 0 {
				v := js[start+1 : end-1]
				if !esc {
					return append(dst, v...), nil
				}
				if id, ok := unescape(dst, v); ok {
					return id, nil
				}
			}
		}
	}
	raw, err := Parse(line)
	if err != nil {
		return dst, err
	}
	return raw.Block.AppendID(dst)
}

// MergeEmbargoed copies a day's tombstone lines (public/embargoed/embargoed-YYYYMMDD.cdxj, sorted
// bytewise) from r to w, leaving out the lines of the capture ids in remove and adding the lines
// of add (capture id → line, newline included) where their order puts them; a line of add
// replaces the line of the same id in r. One sequential pass: its cost is the day's bytes (a line
// is read only for its key and id; verify parses every line). Every line of r must come after the
// one before it and name its id; a line longer than MaxLineBytes is malformed.
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
		if id, err = lineID(id[:0], line); err != nil {
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
