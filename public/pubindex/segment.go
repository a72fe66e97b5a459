package pubindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"sync/atomic"

	"github.com/klauspost/compress/s2"
)

// DamageError is a torn, corrupt or missing index file: the lookup refuses to serve from it.
type DamageError struct {
	File   string // relative to public/
	Reason string
}

// Error names the file and the command that rebuilds the index.
func (e *DamageError) Error() string {
	return fmt.Sprintf("the public index is damaged: public/%s: %s; rebuild it from the public CDXJ files with: archivectl reindex-public", e.File, e.Reason)
}

func damaged(name, format string, args ...any) *DamageError {
	return &DamageError{File: Dir + "/" + name, Reason: fmt.Sprintf(format, args...)}
}

// Segment is one open segment file, read-only. Its memory is the file's mapping (page cache),
// not the Go heap, but for its top level; the mapping is released when the Segment is no
// longer reachable, or by Close.
type Segment struct {
	info     SegmentInfo
	ft       footer
	data     []byte      // the whole file, mapped; nil when read with pread
	ra       io.ReaderAt // the file, when not mapped
	table    []byte      // the filter (format 2), first keys, entries and key table (format 3)
	bloom    []byte      // views into table
	keys     []byte
	entries  []byte
	slots    []byte
	top      []string      // the first key of every topStep-th block: most of a search's probes
	sums     []uint32      // the CRC-32C of each chunk of the table
	verified []atomic.Bool // which chunks were checked against their sums
	res      *resources
}

// resources is what a Segment holds outside the Go heap, released once.
type resources struct {
	mapped []byte
	file   io.Closer
}

func (r *resources) release() {
	if r.mapped != nil {
		unmapFile(r.mapped)
		r.mapped = nil
	}
	if r.file != nil {
		r.file.Close()
		r.file = nil
	}
}

// openSegment opens public/index/NAME of fsys and checks it against want, its manifest entry.
func openSegment(fsys fs.FS, want SegmentInfo) (*Segment, error) {
	f, err := fsys.Open(path.Join(Dir, want.Name))
	if err != nil {
		return nil, err
	}
	return newSegment(f, want)
}

// openFile opens the segment file at path (not yet public) and checks it against want.
func openFile(path string, want SegmentInfo) (*Segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("public index: %w", err)
	}
	return newSegment(f, want)
}

// newSegment reads the segment file f, which it then owns, and checks it against want.
func newSegment(f fs.File, want SegmentInfo) (*Segment, error) {
	name := want.Name
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("public index: %w", err)
	}
	size := fi.Size()
	if size != want.Size {
		f.Close()
		return nil, damaged(name, "is %d bytes, the manifest says %d (torn or replaced)", size, want.Size)
	}
	if size < footerSize {
		f.Close()
		return nil, damaged(name, "is %d bytes, shorter than a segment footer", size)
	}
	s := &Segment{info: want, res: &resources{}}
	if osf, ok := f.(*os.File); ok {
		if m, err := mapFile(osf, size); err == nil {
			s.data, s.res.mapped = m, m
			f.Close()
		}
	}
	if s.data == nil {
		ra, ok := f.(io.ReaderAt)
		if !ok {
			f.Close()
			return nil, fmt.Errorf("public index: %s allows no random access", name)
		}
		s.ra, s.res.file = ra, f
	}
	if err := s.load(size); err != nil {
		s.res.release()
		return nil, err
	}
	runtime.AddCleanup(s, func(r *resources) { r.release() }, s.res)
	return s, nil
}

// load reads and checks the footer and the head (the top level and the table's checksums).
// The table itself is checked chunk by chunk when first read (check), so that opening costs
// a few bytes per block whatever the archive's size; a mapped file read with pread is checked
// whole now.
func (s *Segment) load(size int64) error {
	name := s.info.Name
	fb, err := s.readAt(size-footerSize, footerSize)
	if err != nil {
		return damaged(name, "cannot read its footer: %v", err)
	}
	if s.ft, err = decodeFooter(fb, size); err != nil {
		return damaged(name, "%v", err)
	}
	if s.info.Check != 0 && s.ft.crc != s.info.Check {
		return damaged(name, "is not the segment the manifest lists (footer checksum %08x, want %08x)", s.ft.crc, s.info.Check)
	}
	head, err := s.readAt(int64(s.ft.topOff), size-footerSize-int64(s.ft.topOff))
	if err != nil {
		return damaged(name, "cannot read its head: %v", err)
	}
	if crc32.Checksum(head, castagnoli) != s.ft.headCRC {
		return damaged(name, "head checksum mismatch (torn or corrupt)")
	}
	if err := s.readHead(head); err != nil {
		return damaged(name, "head: %v", err)
	}
	if s.table, err = s.readAt(int64(s.ft.bloomOff), int64(s.ft.topOff-s.ft.bloomOff)); err != nil {
		return damaged(name, "cannot read its table: %v", err)
	}
	bl, ko, eo, so := int(s.ft.bloomBlocks)*bloomBlock, s.ft.keysOff-s.ft.bloomOff, s.ft.entriesOff()-s.ft.bloomOff, s.ft.slotsOff()-s.ft.bloomOff
	s.bloom, s.keys, s.entries, s.slots = s.table[:bl], s.table[ko:eo], s.table[eo:so], s.table[so:]
	s.verified = make([]atomic.Bool, len(s.sums))
	if s.data == nil { // read into memory: check it all now
		for c := range s.sums {
			if err := s.checkChunk(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// readHead reads the top level's keys (sorted) and the chunk checksums.
func (s *Segment) readHead(head []byte) error {
	n := (s.ft.blocks + topStep - 1) / topStep
	s.top = make([]string, 0, n)
	for range n {
		if len(head) < 2 || len(head) < 2+int(binary.LittleEndian.Uint16(head)) {
			return errors.New("top level cut short")
		}
		k := string(head[2 : 2+binary.LittleEndian.Uint16(head)])
		if len(s.top) > 0 && k < s.top[len(s.top)-1] {
			return errors.New("top level out of order")
		}
		s.top = append(s.top, k)
		head = head[2+len(k):]
	}
	if uint64(len(head)) != s.ft.chunks()*4 {
		return fmt.Errorf("%d bytes of chunk checksums, want %d", len(head), s.ft.chunks()*4)
	}
	s.sums = make([]uint32, 0, len(head)/4)
	for ; len(head) > 0; head = head[4:] {
		s.sums = append(s.sums, binary.LittleEndian.Uint32(head))
	}
	return nil
}

// checkChunk checks chunk c of the table against its checksum, once.
func (s *Segment) checkChunk(c int) error {
	if s.verified[c].Load() {
		return nil
	}
	b := s.table[c*chunkSize : min((c+1)*chunkSize, len(s.table))]
	if crc32.Checksum(b, castagnoli) != s.sums[c] {
		return damaged(s.info.Name, "table bytes %d–%d: checksum mismatch (corrupt)", int(s.ft.bloomOff)+c*chunkSize, int(s.ft.bloomOff)+c*chunkSize+len(b))
	}
	s.verified[c].Store(true)
	return nil
}

// tableDamage carries a *DamageError found while reading the table out of a search, to the
// Set method that recovers it (recoverFault).
type tableDamage struct{ err *DamageError }

// check makes sure table bytes [off, off+n) are checked, or panics with a tableDamage.
func (s *Segment) check(off, n int) {
	if off < 0 || n < 0 || off+n > len(s.table) {
		panic(tableDamage{damaged(s.info.Name, "table reference %d+%d out of range (corrupt)", off, n)})
	}
	for c := off / chunkSize; c <= (off+max(n, 1)-1)/chunkSize; c++ {
		if err := s.checkChunk(c); err != nil {
			panic(tableDamage{err.(*DamageError)})
		}
	}
}

// Check reads the whole table against its checksums (what opening leaves to the first reads).
func (s *Segment) Check() error {
	defer runtime.KeepAlive(s)
	for c := range s.sums {
		if err := s.checkChunk(c); err != nil {
			return err
		}
	}
	return nil
}

// checkBlocks checks every block's compressed bytes against its checksum; the table must have
// passed Check.
func (s *Segment) checkBlocks() error {
	defer runtime.KeepAlive(s)
	for i := range s.blocks() {
		e := s.entry(i)
		if e.off+uint64(e.clen) > s.ft.bloomOff {
			return damaged(s.info.Name, "block %d: bad table entry (corrupt)", i)
		}
		comp, err := s.readAt(int64(e.off), int64(e.clen))
		if err != nil {
			return damaged(s.info.Name, "block %d: %v", i, err)
		}
		if crc32.Checksum(comp, castagnoli) != e.crc {
			return damaged(s.info.Name, "block %d at offset %d: checksum mismatch", i, e.off)
		}
	}
	return nil
}

// readAt returns n bytes at off: a view of the mapping, or a fresh buffer read with pread.
func (s *Segment) readAt(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 {
		return nil, errors.New("negative range")
	}
	if s.data != nil {
		if off+n > int64(len(s.data)) {
			return nil, io.ErrUnexpectedEOF
		}
		return s.data[off : off+n], nil
	}
	b := make([]byte, n)
	if _, err := s.ra.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// Close releases the segment's mapping or file now; only for a Segment nobody else reads.
func (s *Segment) Close() { s.res.release() }

// Info is the segment's manifest entry.
func (s *Segment) Info() SegmentInfo { return s.info }

func (s *Segment) blocks() int { return int(s.ft.blocks) }

func (s *Segment) entry(i int) entry {
	off := len(s.table) - len(s.slots) - len(s.entries) + i*entrySize
	s.check(off, entrySize)
	return getEntry(s.entries[i*entrySize:])
}

// firstKey is the first key of block i.
func (s *Segment) firstKey(i int) []byte {
	e := s.entry(i)
	ko := uint64(len(s.bloom))
	if e.keyOff+uint64(e.keyLen) > uint64(len(s.keys)) {
		panic(tableDamage{damaged(s.info.Name, "block %d: key out of range (corrupt)", i)})
	}
	s.check(int(ko+e.keyOff), int(e.keyLen))
	return s.keys[e.keyOff : e.keyOff+uint64(e.keyLen)]
}

// search returns the first block whose first key is at least key.
func (s *Segment) search(key []byte) int {
	j := sort.Search(len(s.top), func(i int) bool { return s.top[i] >= string(key) })
	if j == 0 {
		return 0 // the first block's key is at least key, or there are no blocks
	}
	lo, hi := (j-1)*topStep+1, min(j*topStep, s.blocks())
	return lo + sort.Search(hi-lo, func(i int) bool { return bytes.Compare(s.firstKey(lo+i), key) >= 0 })
}

// block decodes block i into dst (reused when large enough) and checks it. It returns the
// whole block, its lines (a prefix of it) and their records (nil in a format-2 segment).
func (s *Segment) block(i int, dst []byte) (buf, lines, recs []byte, err error) {
	buf, err = s.decode(i, dst)
	if err != nil || s.ft.format == formatV2 {
		return buf, buf, nil, err
	}
	n := len(buf) - 4
	l := int(binary.LittleEndian.Uint32(buf[n:]))
	if l > n || (n-l)%recSize != 0 || l == 0 || buf[l-1] != '\n' {
		return nil, nil, nil, damaged(s.info.Name, "block %d: its lines and records do not fit (corrupt)", i)
	}
	return buf, buf[:l], buf[l:n], nil
}

// decode decodes block i into dst (reused when large enough) and checks its checksum.
func (s *Segment) decode(i int, dst []byte) ([]byte, error) {
	e := s.entry(i)
	if e.off+uint64(e.clen) > s.ft.bloomOff || int(e.ulen) > maxBlock+maxLine+recSize+4 || e.ulen == 0 {
		return nil, damaged(s.info.Name, "block %d: bad table entry (corrupt)", i)
	}
	comp, err := s.readAt(int64(e.off), int64(e.clen))
	if err != nil {
		return nil, damaged(s.info.Name, "block %d: %v", i, err)
	}
	if crc32.Checksum(comp, castagnoli) != e.crc {
		return nil, damaged(s.info.Name, "block %d at offset %d: checksum mismatch", i, e.off)
	}
	if n, err := s2.DecodedLen(comp); err != nil || n != int(e.ulen) {
		return nil, damaged(s.info.Name, "block %d at offset %d: does not decode to %d bytes", i, e.off, e.ulen)
	}
	if cap(dst) < int(e.ulen) {
		dst = make([]byte, e.ulen)
	}
	out, err := s2.Decode(dst[:e.ulen], comp)
	runtime.KeepAlive(s)
	if err != nil || len(out) != int(e.ulen) || s.ft.format == formatV2 && out[len(out)-1] != '\n' {
		return nil, damaged(s.info.Name, "block %d at offset %d: does not decode", i, e.off)
	}
	return out, nil
}
