package pubindex

import (
	"encoding/binary"

	"github.com/archivectl/archivectl/public"
)

// A block of a format-3 segment holds, after its lines, one fixed-size record per line: the
// line taken apart by ParseLine when it was written (its numbers, and where each field lies
// in the line), so that a lookup reads a line's fields without parsing its JSON. Then the
// length of the lines, 4 bytes. A record is one of:
const (
	recMalformed = 0 // the line does not parse: lookups leave it out, as Merge does
	recViews     = 1 // the fields below are the line's
	recParse     = 2 // the line parses, but a field is not a plain view into it (an escaped string, a line over 64 KiB): parse it
)

// The record's layout, little-endian: kind (1 byte), flags (1), status (2), time, release_at,
// offset, length (8 each, Unix nanoseconds for the times), then one (offset, length) pair of
// 2 bytes each per field of recFields, relative to the line; an absent field is (0xffff, 0).
const (
	recRevisit   = 1 << 0
	recIDEscaped = 1 << 1
	recFixed     = 36
	recSize      = recFixed + 4*recFieldCount
	recAbsent    = 0xffff
)

// recFields are the fields a record places, in order.
func recFields(f *public.Fields) [recFieldCount]*[]byte {
	return [...]*[]byte{&f.URL, &f.Mime, &f.Digest, &f.Filename, &f.ReleaseAt, &f.ID, &f.State, &f.Time,
		&f.RefersTo, &f.EmbargoSource, &f.Usage, &f.UsageRobots, &f.UsageHeader, &f.Headers}
}

const recFieldCount = 14

// appendRecord appends the record of line to dst.
func appendRecord(dst, line []byte) []byte {
	var rec [recSize]byte
	r, err := ParseLine(line)
	switch {
	case err != nil:
		rec[0] = recMalformed
	case len(line) > recAbsent || !putFields(rec[:], line, &r):
		rec[0] = recParse
	default:
		rec[0] = recViews
	}
	return append(dst, rec[:]...)
}

// putFields fills rec with the parsed line r; false when a field is not a view into line.
func putFields(rec, line []byte, r *public.Raw) bool {
	le := binary.LittleEndian
	f := &r.Block
	if f.Revisit {
		rec[1] |= recRevisit
	}
	if f.IDEscaped {
		rec[1] |= recIDEscaped
	}
	le.PutUint16(rec[2:], uint16(f.Status))
	le.PutUint64(rec[4:], uint64(r.Time))
	le.PutUint64(rec[12:], uint64(r.ReleaseAt))
	le.PutUint64(rec[20:], uint64(f.Offset))
	le.PutUint64(rec[28:], uint64(f.Length))
	for i, v := range recFields(f) {
		p := rec[recFixed+4*i:]
		if *v == nil {
			le.PutUint16(p, recAbsent)
			continue
		}
		off, ok := viewOffset(line, *v)
		if !ok {
			return false
		}
		le.PutUint16(p, uint16(off))
		le.PutUint16(p[2:], uint16(len(*v)))
	}
	return true
}

// viewOffset is where v lies in line, when v is a subslice of it (the same bytes at the same
// place, which is what the parser's views are; a decoded copy is not).
func viewOffset(line, v []byte) (int, bool) {
	off := cap(line) - cap(v)
	if off < 0 || off+len(v) > len(line) || (len(v) > 0 && &line[off] != &v[0]) {
		return 0, false
	}
	return off, true
}

// fromRecord returns the capture a line stands for, from its record when it has one (rec nil
// for lines of format-2 segments); ok is false for a line that does not parse.
func fromRecord(line, rec []byte) (c Capture, ok bool) {
	if rec == nil || rec[0] != recViews {
		if rec != nil && rec[0] == recMalformed {
			return c, false
		}
		r, err := ParseLine(line)
		if err != nil {
			return c, false
		}
		return Capture{Raw: r, Headers: r.Block.Headers}, true
	}
	le := binary.LittleEndian
	r := &c.Raw
	r.Key = KeyOf(line)
	r.Timestamp = line[len(r.Key)+1 : len(r.Key)+15]
	f := &r.Block
	f.Revisit, f.IDEscaped = rec[1]&recRevisit != 0, rec[1]&recIDEscaped != 0
	f.Status = int64(le.Uint16(rec[2:]))
	r.Time, r.ReleaseAt = int64(le.Uint64(rec[4:])), int64(le.Uint64(rec[12:]))
	f.Offset, f.Length = int64(le.Uint64(rec[20:])), int64(le.Uint64(rec[28:]))
	for i, v := range recFields(f) {
		p := rec[recFixed+4*i:]
		off, n := int(le.Uint16(p)), int(le.Uint16(p[2:]))
		if off == recAbsent {
			continue
		}
		if off+n > len(line) {
			return c, false // a record that does not fit its line: the block's checksum held, so the writer erred
		}
		*v = line[off : off+n : off+n]
	}
	c.Headers = f.Headers
	return c, true
}
