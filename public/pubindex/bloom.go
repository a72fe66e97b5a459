package pubindex

import "github.com/cespare/xxhash/v2"

// The Bloom filter of a segment: its keys' xxhash64 values, each setting bloomK bits inside
// one 512-bit block chosen by the hash's upper half, so that a probe touches one cache line.
// At bitsPerKey bits a key, about 1.5% of the keys a segment lacks pass it.

// keyHash is the filter hash of a key.
func keyHash(key []byte) uint64 { return xxhash.Sum64(key) }

// bloomBlocksFor is the filter size, in blocks, for n keys.
func bloomBlocksFor(n uint64) uint32 {
	if n == 0 {
		return 0
	}
	return uint32((n*bitsPerKey + bloomBlock*8 - 1) / (bloomBlock * 8))
}

// bloomBits yields the bit positions (within a block) and the block of hash h.
func bloomPlace(h uint64, blocks uint32) (block uint32, h1, h2 uint32) {
	block = uint32((h >> 32) * uint64(blocks) >> 32)
	h1 = uint32(h)
	h2 = uint32((h*0x9E3779B97F4A7C15)>>32) | 1
	return block, h1, h2
}

// bloomAdd sets the bits of h in the filter f of blocks blocks.
func bloomAdd(f []byte, blocks uint32, h uint64) {
	blk, h1, h2 := bloomPlace(h, blocks)
	b := f[int(blk)*bloomBlock : int(blk+1)*bloomBlock]
	for i := range uint32(bloomK) {
		bit := (h1 + i*h2) & (bloomBlock*8 - 1)
		b[bit>>3] |= 1 << (bit & 7)
	}
}

// bloomHas reports whether h may be in the filter f (k bits per key).
func bloomHas(f []byte, blocks, k uint32, h uint64) bool {
	if blocks == 0 {
		return false
	}
	blk, h1, h2 := bloomPlace(h, blocks)
	b := f[int(blk)*bloomBlock : int(blk+1)*bloomBlock]
	for i := range k {
		bit := (h1 + i*h2) & (bloomBlock*8 - 1)
		if b[bit>>3]&(1<<(bit&7)) == 0 {
			return false
		}
	}
	return true
}
