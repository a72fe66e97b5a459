package pubindex

import (
	"bytes"
	"encoding/binary"
	"runtime"
)

// Finding the lines of one key in a segment: through the key table (format 3), or the Bloom
// filter and the search of the blocks' first keys (format 2).

// mayHold reports whether the segment's filter admits key.
func (s *Segment) mayHold(h uint64) bool {
	if s.ft.bloomBlocks == 0 {
		return false
	}
	blk, _, _ := bloomPlace(h, s.ft.bloomBlocks)
	s.check(int(blk)*bloomBlock, bloomBlock)
	ok := bloomHas(s.bloom, s.ft.bloomBlocks, s.ft.k, h)
	runtime.KeepAlive(s)
	return ok
}

// startBlock is the block where the lines of key would begin, or -1 when none can exist.
func (s *Segment) startBlock(key []byte) int {
	i := s.search(key)
	if i < s.blocks() && bytes.Equal(s.firstKey(i), key) {
		if i > 0 && s.entry(i).flags&flagCont != 0 {
			i-- // the key's lines began in an earlier block: this one, or before if it holds only them
			for i > 0 && s.entry(i).flags&flagCont != 0 && bytes.Equal(s.firstKey(i), key) {
				i--
			}
		}
		runtime.KeepAlive(s)
		return i
	}
	runtime.KeepAlive(s)
	return i - 1 // only the block before can end with key's lines
}

// collect appends the lines of key to r.lines; h is the key's hash.
func (s *Segment) collect(key []byte, h uint64, r *reader) error {
	defer runtime.KeepAlive(s)
	if s.ft.format != formatV2 {
		return s.probe(key, h, r)
	}
	if !s.mayHold(h) {
		return nil
	}
	b := s.startBlock(key)
	if b < 0 {
		return nil
	}
	_, err := s.readFrom(b, key, r)
	return err
}

// probe finds the block where the lines of key begin in the key table and reads them from
// it: format 3.
func (s *Segment) probe(key []byte, h uint64, r *reader) error {
	n := uint64(len(s.slots) / slotSize)
	if n == 0 {
		return nil
	}
	le := binary.LittleEndian
	j, fp := slotPlace(h, n)
	base := len(s.table) - len(s.slots)
	for range n {
		s.check(base+int(j)*slotSize, slotSize)
		slot := s.slots[j*slotSize:]
		switch le.Uint32(slot) {
		case 0:
			return nil
		case fp:
			b := int(le.Uint32(slot[4:]))
			if b >= s.blocks() {
				return damaged(s.info.Name, "key table slot %d: block %d out of range (corrupt)", j, b)
			}
			if found, err := s.readFrom(b, key, r); found || err != nil {
				return err
			}
		}
		j = (j + 1) & (n - 1)
	}
	return nil
}

// readFrom appends to r the lines of key from block b on, and reports whether there were any.
func (s *Segment) readFrom(b int, key []byte, r *reader) (found bool, err error) {
	for ; b < s.blocks(); b++ {
		buf, lines, recs, err := s.block(b, r.buffer())
		if err != nil {
			return found, err
		}
		r.keep(buf)
		for k, rest := 0, lines; len(rest) > 0; k++ {
			n := bytes.IndexByte(rest, '\n') + 1
			line := rest[:n]
			rest = rest[n:]
			switch c := bytes.Compare(KeyOf(line), key); {
			case c > 0:
				return found, nil
			case c == 0:
				var rec []byte
				if recs != nil {
					if (k+1)*recSize > len(recs) {
						return found, damaged(s.info.Name, "block %d: fewer records than lines (corrupt)", b)
					}
					rec = recs[k*recSize : (k+1)*recSize]
				}
				r.lines = append(r.lines, line)
				r.recs = append(r.recs, rec)
				found = true
			}
		}
		if b+1 < s.blocks() && !bytes.Equal(s.firstKey(b+1), key) {
			return found, nil
		}
	}
	return found, nil
}
