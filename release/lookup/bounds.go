package lookup

import (
	"io/fs"
	"log/slog"
)

// beyondShard returns why a released capture's record cannot lie where its line says, given its
// shard's size: the range starts or ends past the end of the file (a length of 10^15).
func beyondShard(c *capture, size int64) error {
	if c.offset < 0 || c.length <= 0 || c.offset > size || c.length > size-c.offset {
		return damaged("the indexed record (offset %d, length %d) runs past the end of public/%s (%d bytes)", c.offset, c.length, c.file, size)
	}
	return nil
}

// warnBeyondShards logs, when an index loads, each released capture of chunks whose record runs
// past the end of its shard. The capture stays listed (its tombstone facts are sound, and a
// revisit's payload comes from its original), but the record endpoint refuses its record
// before reading a byte of it (serveRecord). A shard that cannot be statted is left to the
// record endpoint to report.
func warnBeyondShards(fsys fs.FS, logger *slog.Logger, cdxj string, chunks [][]capture) {
	sizes := map[string]int64{}
	for _, cs := range chunks {
		for i := range cs {
			c := &cs[i]
			if !c.released {
				continue
			}
			size, ok := sizes[c.file]
			if !ok {
				size = -1
				if fi, err := fs.Stat(fsys, c.file); err == nil {
					size = fi.Size()
				}
				sizes[c.file] = size
			}
			if size < 0 {
				continue
			}
			if err := beyondShard(c, size); err != nil {
				logger.Warn("released capture whose record will not be served", "cdxj", cdxj, "url", c.url(), "err", err)
			}
		}
	}
}
