package pubindex

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"
)

// Set is the public index of one generation, opened read-only: the segments its manifest lists.
type Set struct {
	Manifest Manifest
	segs     []*Segment
}

// Open opens the index of the public directory fsys. Segments that prev (may be nil) already
// has open are shared, not opened again. A missing manifest is an empty index, unless the
// public directory holds CDXJ files: then the index is missing and Open returns a
// *DamageError. A segment removed by a commit while Open ran makes it read the manifest again.
func Open(fsys fs.FS, prev *Set) (*Set, error) {
	for attempt := 0; ; attempt++ {
		s, err := open(fsys, prev)
		if err != errReplaced || attempt == 3 {
			return s, err
		}
	}
}

// errReplaced: the manifest changed while its segments were being opened.
var errReplaced = errors.New("public index: the manifest changed while it was being opened")

func open(fsys fs.FS, prev *Set) (*Set, error) {
	m, found, err := ReadManifest(fsys)
	if err != nil {
		return nil, err
	}
	if !found {
		if n, err := cdxjCount(fsys); err != nil || n > 0 {
			if err != nil {
				return nil, err
			}
			return nil, &DamageError{File: Dir + "/" + ManifestFile, Reason: fmt.Sprintf("missing, although public/ holds %d CDXJ files", n)}
		}
		return &Set{}, nil
	}
	old := map[string]*Segment{}
	if prev != nil {
		for _, s := range prev.segs {
			old[s.info.Name] = s
		}
	}
	set := &Set{Manifest: m}
	for _, info := range m.Segments {
		if s := old[info.Name]; s != nil && s.info == info {
			set.segs = append(set.segs, s)
			continue
		}
		s, err := openSegment(fsys, info)
		if errors.Is(err, fs.ErrNotExist) {
			if now, _, _ := ReadManifest(fsys); !reflect.DeepEqual(now, m) {
				return nil, errReplaced
			}
			return nil, damaged(info.Name, "missing, although the manifest lists it")
		}
		if err != nil {
			return nil, err
		}
		set.segs = append(set.segs, s)
	}
	return set, nil
}

// Segments is how many segments the set reads.
func (s *Set) Segments() int { return len(s.segs) }

// Bytes is the size of the set's segment files.
func (s *Set) Bytes() int64 {
	var n int64
	for _, seg := range s.segs {
		n += seg.info.Size
	}
	return n
}

// reader holds the blocks one lookup decoded; the lines it hands out point into them.
type reader struct {
	lines  [][]byte
	recs   [][]byte  // the record of each line, nil for a format-2 segment's
	caps   []Capture // the lines' captures
	merged []Capture // and merged
	order  []int
	used   [][]byte
	free   [][]byte
}

var readers = sync.Pool{New: func() any { return &reader{} }}

// buffer returns a spare block buffer, or nil.
func (r *reader) buffer() []byte {
	if n := len(r.free); n > 0 {
		b := r.free[n-1]
		r.free = r.free[:n-1]
		return b
	}
	return nil
}

// keep records that lines point into b.
func (r *reader) keep(b []byte) { r.used = append(r.used, b) }

// reset makes every buffer spare again; large ones are dropped.
func (r *reader) reset() {
	for _, b := range r.used {
		if cap(b) <= 64<<10 {
			r.free = append(r.free, b)
		}
	}
	clear(r.used)
	r.used = r.used[:0]
	clear(r.lines)
	r.lines = r.lines[:0]
	clear(r.recs)
	r.recs = r.recs[:0]
	clear(r.caps)
	r.caps = r.caps[:0]
	clear(r.merged)
	r.merged = r.merged[:0]
}

// Lookup calls fn with every line of key in the set, in no particular order (Merge orders
// and combines them). The lines are valid only during fn.
func (s *Set) Lookup(key string, fn func(lines [][]byte) error) (err error) {
	defer recoverFault(debug.SetPanicOnFault(true), &err)
	r := readers.Get().(*reader)
	defer func() { r.reset(); readers.Put(r) }()
	if err := s.gather(key, r); err != nil || len(r.lines) == 0 {
		return err
	}
	return fn(r.lines)
}

// Captures calls fn with the captures of key in the set as Merge makes them from its lines,
// but read from the lines' records, without parsing them (but for lines of format-2
// segments). The captures are valid only during fn.
func (s *Set) Captures(key string, fn func([]Capture) error) (err error) {
	defer recoverFault(debug.SetPanicOnFault(true), &err)
	r := readers.Get().(*reader)
	defer func() { r.reset(); readers.Put(r) }()
	if err := s.gather(key, r); err != nil || len(r.lines) == 0 {
		return err
	}
	cs := r.caps[:0]
	for i, l := range r.lines {
		if c, ok := fromRecord(l, r.recs[i]); ok {
			cs = append(cs, c)
		}
	}
	r.caps = cs
	r.merged, r.order = mergeInto(r.merged, r.order, cs)
	return fn(r.merged)
}

// gather collects the lines of key, and their records, from every segment into r.
func (s *Set) gather(key string, r *reader) error {
	k := []byte(key)
	h := keyHash(k)
	for _, seg := range s.segs {
		if err := seg.collect(k, h, r); err != nil {
			return err
		}
	}
	return nil
}

// Scan calls fn for every key from `from` on, in key order, with all of its lines in the set
// (in no particular order), until fn returns false or an error. Key and lines are valid only
// during fn.
func (s *Set) Scan(from string, fn func(key []byte, lines [][]byte) (bool, error)) (err error) {
	defer recoverFault(debug.SetPanicOnFault(true), &err)
	cs := make([]*cursor, 0, len(s.segs))
	for _, seg := range s.segs {
		c := &cursor{seg: seg}
		if err := c.seek([]byte(from)); err != nil {
			return err
		}
		if c.line != nil {
			cs = append(cs, c)
		}
	}
	var key []byte
	var arena []byte
	var lines [][]byte
	for len(cs) > 0 {
		minKey := cs[0].key
		for _, c := range cs[1:] {
			if bytes.Compare(c.key, minKey) < 0 {
				minKey = c.key
			}
		}
		key = append(key[:0], minKey...)
		arena, lines = arena[:0], lines[:0]
		var ends []int
		for _, c := range cs {
			for c.line != nil && bytes.Equal(c.key, key) {
				arena = append(arena, c.line...)
				ends = append(ends, len(arena))
				if err := c.next(); err != nil {
					return err
				}
			}
		}
		for i, end := range ends {
			start := 0
			if i > 0 {
				start = ends[i-1]
			}
			lines = append(lines, arena[start:end:end])
		}
		more, err := fn(key, lines)
		if err != nil || !more {
			return err
		}
		live := cs[:0]
		for _, c := range cs {
			if c.line != nil {
				live = append(live, c)
			}
		}
		cs = live
	}
	return nil
}

// recoverFault, deferred with the result of debug.SetPanicOnFault(true), turns a damaged
// table chunk found while searching (tableDamage) and a fault on a mapped segment (a file
// truncated under its mapping) into an error instead of a crash, and restores the
// goroutine's setting.
func recoverFault(old bool, err *error) {
	debug.SetPanicOnFault(old)
	if r := recover(); r != nil {
		if d, ok := r.(tableDamage); ok {
			*err = d.err
			return
		}
		if re, ok := r.(runtime.Error); ok {
			if _, fault := re.(interface{ Addr() uintptr }); fault {
				*err = &DamageError{File: Dir, Reason: "a segment file changed under the lookup: " + re.Error()}
				return
			}
		}
		panic(r)
	}
}

// cursor reads one segment's lines in order.
type cursor struct {
	seg  *Segment
	b    int    // the block buf holds
	buf  []byte // its lines
	rest []byte // the lines after line
	line []byte // the current line, nil at the end
	key  []byte
}

// seek positions the cursor at the first line whose key is at least from.
func (c *cursor) seek(from []byte) error {
	if c.seg.blocks() == 0 {
		return nil
	}
	c.b = max(c.seg.search(from)-1, 0)
	buf, lines, _, err := c.seg.block(c.b, nil)
	if err != nil {
		return err
	}
	c.buf, c.rest = buf, lines
	if err := c.next(); err != nil {
		return err
	}
	for c.line != nil && bytes.Compare(c.key, from) < 0 {
		if err := c.next(); err != nil {
			return err
		}
	}
	return nil
}

// next moves to the next line, decoding the next block when this one is done; the line
// before is overwritten.
func (c *cursor) next() error {
	for len(c.rest) == 0 {
		if c.b+1 >= c.seg.blocks() {
			c.line, c.key = nil, nil
			return nil
		}
		c.b++
		buf, lines, _, err := c.seg.block(c.b, c.buf)
		if err != nil {
			return err
		}
		c.buf, c.rest = buf, lines
	}
	n := bytes.IndexByte(c.rest, '\n') + 1
	c.line, c.rest = c.rest[:n], c.rest[n:]
	c.key = KeyOf(c.line)
	return nil
}

// Check reads every segment's table and compressed blocks against their checksums (what opening
// leaves to the first reads of each part), without decoding a block, and returns the first
// *DamageError found.
func (s *Set) Check() error {
	for _, seg := range s.segs {
		if err := seg.Check(); err != nil {
			return err
		}
		if err := seg.checkBlocks(); err != nil {
			return err
		}
	}
	return nil
}
