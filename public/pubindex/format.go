package pubindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"

	"github.com/archivectl/archivectl/public"
)

// Names in public/.
const (
	Dir          = "index"         // the index directory, under public/
	ManifestFile = "manifest.json" // the manifest, under Dir
	SegmentExt   = ".seg"          // a segment file
)

// The segment format.
const (
	magic       = "ACPIDX2\n"
	formatV2    = 2 // blocks of lines
	formatV3    = 3 // blocks of lines, their records and the lines' length (record.go): what is written
	codecSnappy = 1 // the Snappy block format
	footerSize  = 80
	entrySize   = 32
	slotSize    = 8  // a key table slot: the key's fingerprint and the block where its lines begin
	bloomBlock  = 64 // bytes: 512 bits
	bloomK      = 7  // bits set per key
	bitsPerKey  = 10
	flagCont    = 1                   // the block starts inside the lines of the previous block's last key
	maxLine     = public.MaxLineBytes // a longer CDXJ line (its newline included) is malformed
	chunkSize   = 64 << 10            // the table is checksummed in chunks of this size, each checked when first read
	topStep     = 32                  // a key of the top level per this many blocks
)

// blockTarget is the plain size after which a block ends at the next key, and maxBlock the
// size at which a block ends even inside the lines of one key. Variables so that tests can
// make many blocks of a few lines.
var (
	blockTarget = 4 << 10
	maxBlock    = 1 << 20
)

// writeFormat is the format segments are written in; a variable so that a test can write the
// earlier one.
var writeFormat uint32 = formatV3

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// footer is the fixed-size end of a segment file. After the blocks come the table (the
// filter in format 2, the first keys, the entries, the key table in format 3), then the head
// (the top level's keys and the table's chunk checksums), then the footer.
type footer struct {
	format              uint32 // formatV2 or formatV3 (what encode writes)
	blocks, lines, keys uint64
	bloomOff            uint64 // end of the blocks, start of the table and its filter
	bloomBlocks, k      uint32
	keysOff             uint64 // start of the first keys; the entries follow them
	topOff              uint64 // end of the table, start of the head
	headCRC             uint32 // CRC-32C of the head
	crc                 uint32 // CRC-32C of the footer's first 76 bytes
}

func (f *footer) encode() []byte {
	b := make([]byte, footerSize)
	copy(b, magic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], f.format)
	le.PutUint32(b[12:], codecSnappy)
	le.PutUint64(b[16:], f.blocks)
	le.PutUint64(b[24:], f.lines)
	le.PutUint64(b[32:], f.keys)
	le.PutUint64(b[40:], f.bloomOff)
	le.PutUint32(b[48:], f.bloomBlocks)
	le.PutUint32(b[52:], f.k)
	le.PutUint64(b[56:], f.keysOff)
	le.PutUint64(b[64:], f.topOff)
	le.PutUint32(b[72:], f.headCRC)
	f.crc = crc32.Checksum(b[:76], castagnoli)
	le.PutUint32(b[76:], f.crc)
	return b
}

// slots is the size of the key table of a format-3 segment (0 in format 2): a power of two
// at least 4/3 of its keys, so that the table is at most 3/4 full.
func (f *footer) slots() uint64 {
	if f.format == formatV2 || f.keys == 0 {
		return 0
	}
	n := uint64(1)
	for n < f.keys+f.keys/3+1 {
		n <<= 1
	}
	return n
}

// slotsOff is where the key table begins; entriesOff is where the entries begin.
func (f *footer) slotsOff() uint64   { return f.topOff - f.slots()*slotSize }
func (f *footer) entriesOff() uint64 { return f.slotsOff() - f.blocks*entrySize }

// chunks is how many checksummed chunks the table has.
func (f *footer) chunks() uint64 { return (f.topOff - f.bloomOff + chunkSize - 1) / chunkSize }

// decodeFooter reads and checks the footer of a segment of size bytes.
func decodeFooter(b []byte, size int64) (footer, error) {
	var f footer
	le := binary.LittleEndian
	switch {
	case len(b) != footerSize || string(b[:8]) != magic:
		return f, errors.New("no segment footer at its end (torn or not a segment)")
	case crc32.Checksum(b[:76], castagnoli) != le.Uint32(b[76:]):
		return f, errors.New("footer checksum mismatch")
	case le.Uint32(b[8:]) != formatV2 && le.Uint32(b[8:]) != formatV3 || le.Uint32(b[12:]) != codecSnappy:
		return f, fmt.Errorf("format %d codec %d, not one this version reads", le.Uint32(b[8:]), le.Uint32(b[12:]))
	}
	f = footer{format: le.Uint32(b[8:]), blocks: le.Uint64(b[16:]), lines: le.Uint64(b[24:]), keys: le.Uint64(b[32:]), bloomOff: le.Uint64(b[40:]),
		bloomBlocks: le.Uint32(b[48:]), k: le.Uint32(b[52:]), keysOff: le.Uint64(b[56:]), topOff: le.Uint64(b[64:]),
		headCRC: le.Uint32(b[72:]), crc: le.Uint32(b[76:])}
	end := uint64(size) - footerSize
	switch {
	case f.topOff > end || f.bloomOff > f.topOff || f.blocks > (f.topOff-f.bloomOff)/entrySize || f.keys > (f.topOff-f.bloomOff)/slotSize:
		return f, errors.New("footer: sections out of range")
	case f.blocks*entrySize+f.slots()*slotSize > f.topOff-f.bloomOff:
		return f, errors.New("footer: the table's sections do not fit")
	case f.bloomOff+uint64(f.bloomBlocks)*bloomBlock != f.keysOff || f.keysOff > f.entriesOff():
		return f, errors.New("footer: the table's sections do not fit")
	case f.topOff+f.chunks()*4 > end:
		return f, errors.New("footer: no room for the head")
	case f.format == formatV2 && (f.k == 0 || f.k > 16 || (f.bloomBlocks == 0) != (f.blocks == 0)),
		f.format == formatV3 && (f.bloomBlocks != 0 || (f.keys == 0) != (f.blocks == 0)):
		return f, errors.New("footer: bad filter parameters")
	}
	return f, nil
}

// entry is one block's line in the segment's table.
type entry struct {
	off    uint64 // of the compressed block
	keyOff uint64 // of its first key, from the start of the keys
	clen   uint32 // compressed length
	ulen   uint32 // plain length
	crc    uint32 // CRC-32C of the compressed bytes
	keyLen uint16
	flags  uint16
}

func (e *entry) put(b []byte) {
	le := binary.LittleEndian
	le.PutUint64(b, e.off)
	le.PutUint64(b[8:], e.keyOff)
	le.PutUint32(b[16:], e.clen)
	le.PutUint32(b[20:], e.ulen)
	le.PutUint32(b[24:], e.crc)
	le.PutUint16(b[28:], e.keyLen)
	le.PutUint16(b[30:], e.flags)
}

func getEntry(b []byte) entry {
	le := binary.LittleEndian
	return entry{off: le.Uint64(b), keyOff: le.Uint64(b[8:]), clen: le.Uint32(b[16:]), ulen: le.Uint32(b[20:]),
		crc: le.Uint32(b[24:]), keyLen: le.Uint16(b[28:]), flags: le.Uint16(b[30:])}
}

// KeyOf returns the SURT key of a CDXJ line: the bytes before its first space (the whole
// line when it has none).
func KeyOf(line []byte) []byte {
	if i := bytes.IndexByte(line, ' '); i >= 0 {
		return line[:i]
	}
	return bytes.TrimSuffix(line, []byte("\n"))
}

// compareLines orders lines by key, then by their bytes.
func compareLines(a, b []byte) int {
	if c := bytes.Compare(KeyOf(a), KeyOf(b)); c != 0 {
		return c
	}
	return bytes.Compare(a, b)
}

// SegmentName is the name of the k-th segment written for generation gen.
func SegmentName(gen int64, k int) string {
	return fmt.Sprintf("SEG-%012d-%d%s", gen, k, SegmentExt)
}

// isSegmentName reports whether name (a base name) is one SegmentName gives.
func isSegmentName(name string) bool {
	rest, ok := strings.CutPrefix(name, "SEG-")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, SegmentExt)
	if !ok || len(rest) < 14 || rest[12] != '-' {
		return false
	}
	_, err1 := strconv.ParseUint(rest[:12], 10, 64)
	_, err2 := strconv.ParseUint(rest[13:], 10, 32)
	return err1 == nil && err2 == nil
}
