package public

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
)

// RuleChange is what a commit changes in the access rule of one SURT key: the captures it puts
// under embargo (negative: releases) and the least URL of those it puts under embargo.
type RuleChange struct {
	Captures int
	URL      string
}

// aclSep ends a rule's key: "KEY### - {json}".
var aclSep = []byte(ExactSuffix + " - ")

// MergeEmbargoACL copies a .aclj file (as FormatEmbargoACL writes it) from r to w with
// changes applied, in one sequential pass whose cost is the file's bytes, not its rules: an
// unchanged rule's line is copied as it is, a changed rule's line is rewritten (or left out when
// no capture remains), a new key's line goes where its order puts it. The result is what
// FormatEmbargoACL writes for the rules so changed. With no changes and io.Discard it checks a
// file's keys: every line "KEY### - …", in descending order, each key once (a rule's JSON is
// read, and checked, only when its rule changes).
func MergeEmbargoACL(r io.Reader, w io.Writer, changes map[string]RuleChange) error {
	type change struct {
		prefix []byte // the line's start up to the separator: the order of lines
		key    string
		RuleChange
	}
	pending := make([]change, 0, len(changes))
	for k, c := range changes {
		pending = append(pending, change{append([]byte(k), aclSep...), k, c})
	}
	slices.SortFunc(pending, func(a, b change) int { return bytes.Compare(b.prefix, a.prefix) })
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	write := func(rule EmbargoRule) error {
		if rule.Captures <= 0 {
			return nil
		}
		b, err := FormatEmbargoACL([]EmbargoRule{rule})
		if err == nil {
			_, err = bw.Write(b)
		}
		return err
	}
	var prev, line []byte
	for n := 1; ; n++ {
		var err error
		if line, err = readLine(br, line[:0]); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("aclj line %d: %w", n, err)
		}
		i := bytes.Index(line, aclSep)
		if i <= 0 || bytes.IndexByte(line[:i], ' ') >= 0 {
			return fmt.Errorf("aclj line %d: not \"KEY### - {json}\"", n)
		}
		prefix := line[:i+len(aclSep)]
		if prev != nil && bytes.Compare(prev, prefix) <= 0 {
			return fmt.Errorf("aclj line %d: not in descending order, or repeated", n)
		}
		prev = append(prev[:0], prefix...)
		for len(pending) > 0 && bytes.Compare(pending[0].prefix, prefix) > 0 { // a new key before this line
			if err := write(EmbargoRule{Key: pending[0].key, URL: pending[0].URL, Captures: pending[0].Captures}); err != nil {
				return err
			}
			pending = pending[1:]
		}
		if len(pending) == 0 || !bytes.Equal(pending[0].prefix, prefix) {
			if _, err := bw.Write(line); err != nil {
				return err
			}
			continue
		}
		old, err := ParseEmbargoACL(line)
		if err != nil {
			return fmt.Errorf("aclj line %d: %w", n, err)
		}
		rule, c := old[0], pending[0]
		rule.Captures += c.Captures
		if c.URL != "" && c.URL < rule.URL {
			rule.URL = c.URL
		}
		if err := write(rule); err != nil {
			return err
		}
		pending = pending[1:]
	}
	for _, c := range pending {
		if err := write(EmbargoRule{Key: c.key, URL: c.URL, Captures: c.Captures}); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// readLine appends the next line of br, with its newline, to buf; io.EOF at the end, an error
// for a last line without a newline.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		b, err := br.ReadSlice('\n')
		buf = append(buf, b...)
		switch {
		case err == nil:
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, errors.New("no final newline")
		default:
			return buf, err
		}
	}
}
