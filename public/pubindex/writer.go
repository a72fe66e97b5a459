package pubindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/klauspost/compress/s2"
)

// segWriter writes one segment file from lines given in order.
type segWriter struct {
	path      string
	f         *os.File
	bw        *bufio.Writer
	off       uint64
	block     []byte // the plain lines of the block being filled
	recs      []byte // their records (record.go)
	blockKey  []byte // its first key
	cont      bool   // it starts inside the previous block's last key
	comp      []byte
	last      []byte // the previous line
	keys      []byte // the first key of every block written
	entries   []byte
	top       []byte   // the head's top level: every topStep-th block's first key, length-prefixed
	hashes    []uint64 // one per distinct key
	starts    []uint32 // the block where each distinct key's lines begin
	sync      bool     // fsync the file when it is finished
	lines     uint64
	distinct  uint64
	blockMade int
}

// createSegment starts a segment file at path (mode 0644, whatever the umask), fsynced when
// finished if sync.
func createSegment(path string, sync bool) (*segWriter, error) {
	f, err := durable.Create(path, 0o644)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("public index: %w", err)
	}
	return &segWriter{path: path, f: f, bw: bufio.NewWriterSize(f, 256<<10), sync: sync}, nil
}

// add appends one line (a CDXJ line; its newline is added when missing). Lines must come
// in the order compareLines defines.
func (w *segWriter) add(line []byte) error {
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line[:len(line):len(line)], '\n')
	}
	key := KeyOf(line)
	newKey := w.lines == 0 || !bytes.Equal(key, KeyOf(w.last))
	if w.lines > 0 && compareLines(w.last, line) > 0 {
		return fmt.Errorf("public index: %s: lines out of order: %.80q after %.80q", w.path, line, w.last)
	}
	if plain := len(w.block) + len(w.recs); plain > 0 && ((newKey && plain >= blockTarget) || plain+len(line)+recSize > maxBlock) {
		if err := w.flush(); err != nil {
			return err
		}
		w.cont = !newKey
	}
	if len(w.block) == 0 {
		w.blockKey = append(w.blockKey[:0], key...)
	}
	if newKey {
		w.hashes = append(w.hashes, keyHash(key))
		w.starts = append(w.starts, uint32(w.blockMade))
		w.distinct++
	}
	w.block = append(w.block, line...)
	if writeFormat == formatV3 {
		w.recs = appendRecord(w.recs, line)
	}
	w.last = append(w.last[:0], line...)
	w.lines++
	return nil
}

// flush compresses and writes the block being filled.
func (w *segWriter) flush() error {
	if len(w.block) == 0 {
		return nil
	}
	if writeFormat == formatV3 { // the lines, their records, the lines' length
		lines := uint32(len(w.block))
		w.block = binary.LittleEndian.AppendUint32(append(w.block, w.recs...), lines)
	}
	w.comp = s2.EncodeSnappyBetter(w.comp[:cap(w.comp)], w.block)
	e := entry{off: w.off, keyOff: uint64(len(w.keys)), clen: uint32(len(w.comp)), ulen: uint32(len(w.block)),
		crc: crc32.Checksum(w.comp, castagnoli), keyLen: uint16(min(len(w.blockKey), 0xffff))}
	if len(w.blockKey) > 0xffff {
		return fmt.Errorf("public index: a key of %d bytes is too long", len(w.blockKey))
	}
	if w.cont {
		e.flags |= flagCont
	}
	if _, err := w.bw.Write(w.comp); err != nil {
		return fmt.Errorf("public index: write %s: %w", w.path, err)
	}
	w.off += uint64(len(w.comp))
	if w.blockMade%topStep == 0 {
		w.top = binary.LittleEndian.AppendUint16(w.top, uint16(len(w.blockKey)))
		w.top = append(w.top, w.blockKey...)
	}
	w.keys = append(w.keys, w.blockKey...)
	var eb [entrySize]byte
	e.put(eb[:])
	w.entries = append(w.entries, eb[:]...)
	w.block, w.recs = w.block[:0], w.recs[:0]
	w.cont = false
	w.blockMade++
	return nil
}

// finish writes the table (filter or key table, first keys, entries), the head (top-level
// keys, the table's chunk checksums) and the footer, syncs (if w.sync) and closes the file,
// and returns what the manifest records of it.
func (w *segWriter) finish() (SegmentInfo, error) {
	if err := w.flush(); err != nil {
		w.abort()
		return SegmentInfo{}, err
	}
	ft := footer{format: writeFormat, blocks: uint64(w.blockMade), lines: w.lines, keys: w.distinct, bloomOff: w.off, k: bloomK}
	var bloom, slots []byte // format 2 has a Bloom filter, format 3 a key table
	if ft.format == formatV2 {
		ft.bloomBlocks = bloomBlocksFor(w.distinct)
		bloom = make([]byte, int(ft.bloomBlocks)*bloomBlock)
		for _, h := range w.hashes {
			bloomAdd(bloom, ft.bloomBlocks, h)
		}
	} else {
		if w.blockMade > 1<<32-1 {
			w.abort()
			return SegmentInfo{}, fmt.Errorf("public index: %s: %d blocks are more than a segment holds", w.path, w.blockMade)
		}
		slots = keyTable(ft.slots(), w.hashes, w.starts)
	}
	ft.keysOff = w.off + uint64(len(bloom))
	var chunks chunker
	for _, b := range [][]byte{bloom, w.keys, w.entries, slots} {
		chunks.write(b)
		if _, err := w.bw.Write(b); err != nil {
			w.abort()
			return SegmentInfo{}, fmt.Errorf("public index: write %s: %w", w.path, err)
		}
	}
	ft.topOff = ft.keysOff + uint64(len(w.keys)+len(w.entries)+len(slots))
	head := w.top
	for _, c := range chunks.sums() {
		head = binary.LittleEndian.AppendUint32(head, c)
	}
	ft.headCRC = crc32.Checksum(head, castagnoli)
	if _, err := w.bw.Write(append(head, ft.encode()...)); err != nil {
		w.abort()
		return SegmentInfo{}, fmt.Errorf("public index: write %s: %w", w.path, err)
	}
	if err := w.bw.Flush(); err != nil {
		w.abort()
		return SegmentInfo{}, fmt.Errorf("public index: write %s: %w", w.path, err)
	}
	size := ft.topOff + uint64(len(head)+footerSize)
	closeFile := w.f.Close
	if w.sync {
		closeFile = func() error { return durable.SyncClose(w.f) }
	}
	if err := closeFile(); err != nil {
		os.Remove(w.path)
		return SegmentInfo{}, fmt.Errorf("public index: %w", err)
	}
	return SegmentInfo{Size: int64(size), Lines: int64(w.lines), Check: ft.crc}, nil
}

// chunker computes the CRC-32C of every chunkSize bytes of what is written to it.
type chunker struct {
	done []uint32
	cur  uint32
	n    int // bytes in the current chunk
}

func (c *chunker) write(b []byte) {
	for len(b) > 0 {
		k := min(len(b), chunkSize-c.n)
		c.cur = crc32.Update(c.cur, castagnoli, b[:k])
		c.n += k
		b = b[k:]
		if c.n == chunkSize {
			c.done, c.cur, c.n = append(c.done, c.cur), 0, 0
		}
	}
}

// sums returns the checksum of every chunk, the last one partial.
func (c *chunker) sums() []uint32 {
	if c.n > 0 {
		return append(c.done, c.cur)
	}
	return c.done
}

// abort closes and deletes the file.
func (w *segWriter) abort() {
	w.f.Close()
	os.Remove(w.path)
}

// writeSegment writes the lines next yields (in order; nil at the end) as a segment at path,
// fsynced if sync.
func writeSegment(path string, sync bool, next func() ([]byte, error)) (SegmentInfo, error) {
	w, err := createSegment(path, sync)
	if err != nil {
		return SegmentInfo{}, err
	}
	for {
		line, err := next()
		if err != nil {
			w.abort()
			return SegmentInfo{}, err
		}
		if line == nil {
			return w.finish()
		}
		if err := w.add(line); err != nil {
			w.abort()
			return SegmentInfo{}, err
		}
	}
}
