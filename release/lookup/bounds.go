package lookup

import (
	"fmt"
	"io/fs"
)

// shardBounds checks, while one CDXJ file loads, that each released capture's record lies inside
// its shard: a line whose length or offset runs past the end of the file (a length of 10^15) is
// skipped as malformed and never reaches the record endpoint. Whether the range is exactly one
// gzip member is checked by the record endpoint before it sends a byte (serveRecord): doing it
// here would cost two reads per capture at every load. A shard that cannot be statted now is left
// to the record endpoint to report.
type shardBounds struct {
	fsys  fs.FS
	sizes map[string]int64 // -1: not statted
}

func newShardBounds(fsys fs.FS) *shardBounds {
	return &shardBounds{fsys: fsys, sizes: map[string]int64{}}
}

// check returns why c's record location cannot be right, or nil.
func (b *shardBounds) check(c *capture) error {
	if !c.released {
		return nil
	}
	size, ok := b.sizes[c.file]
	if !ok {
		size = -1
		if fi, err := fs.Stat(b.fsys, c.file); err == nil {
			size = fi.Size()
		}
		b.sizes[c.file] = size
	}
	if size >= 0 && (c.offset < 0 || c.length <= 0 || c.offset > size || c.length > size-c.offset) {
		return fmt.Errorf("record at offset %d, length %d, runs past the end of %s (%d bytes)", c.offset, c.length, c.file, size)
	}
	return nil
}
