package pubindex

import "encoding/binary"

// The key table of a format-3 segment, after its entries: an open-addressing hash table, at
// most 3/4 full, with one 8-byte slot per key: the key's fingerprint (4 bytes, never 0; 0 is
// an empty slot) and the block where its lines begin (4 bytes). A key's probe starts at the
// slot its hash's upper half names and goes on slot by slot, so that an exact lookup reads a
// slot or two (one cache line, as a Bloom filter probe would) instead of searching the
// blocks' first keys; a fingerprint that matches another key costs one block read, after
// which the probe goes on.

// slotPlace is the first slot of hash h in a table of slots slots (a power of two), and its
// fingerprint.
func slotPlace(h, slots uint64) (first uint64, fp uint32) {
	return (h >> 32) & (slots - 1), uint32(h)&fingerprintMask | 1
}

// fingerprintMask keeps the bits of a fingerprint: all of them, but for a test that makes
// every key's fingerprint match.
var fingerprintMask = ^uint32(0)

// keyTable builds the table of the keys with hashes hs whose lines begin in blocks starts.
func keyTable(slots uint64, hs []uint64, starts []uint32) []byte {
	t := make([]byte, slots*slotSize)
	le := binary.LittleEndian
	for i, h := range hs {
		j, fp := slotPlace(h, slots)
		for le.Uint32(t[j*slotSize:]) != 0 {
			j = (j + 1) & (slots - 1)
		}
		le.PutUint32(t[j*slotSize:], fp)
		le.PutUint32(t[j*slotSize+4:], starts[i])
	}
	return t
}
