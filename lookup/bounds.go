package lookup

// beyondShard returns why a released capture's record cannot lie where its line says, given its
// shard's size: the range starts or ends past the end of the file (a length of 10^15). Such a
// line is indexed (pubindex.Rebuild logs it) and its capture listed; only its record is refused.
func beyondShard(c *capture, size int64) error {
	if c.offset < 0 || c.length <= 0 || c.offset > size || c.length > size-c.offset {
		return damaged("the indexed record (offset %d, length %d) runs past the end of public/%s (%d bytes)", c.offset, c.length, c.file, size)
	}
	return nil
}
