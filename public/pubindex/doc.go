// Package pubindex is the on-disk index of an archive's public side: the public CDXJ lines,
// sorted by SURT key, in immutable segment files that the lookup service opens read-only and
// searches without loading them. Memory does not grow with the archive: a segment is mapped
// (or read with pread) and only the blocks a query needs are decoded.
//
// The public CDXJ files stay the interchange format; the index is derived from them and can be
// rebuilt from them at any time (Rebuild, `archivectl reindex-public`).
//
// # Layout
//
//	public/index/manifest.json            the generation's list of segments and its totals,
//	                                      replaced atomically: the commit point of the index
//	public/index/SEG-<generation>-<k>.seg one segment: immutable once written
//
// A segment holds CDXJ lines exactly as the releaser wrote them, sorted by key then by line
// bytes (for the keys archivectl writes this is byte order), in blocks of about 4 KiB each
// compressed on its own in the Snappy block format, with a CRC-32C of each compressed block.
// In a block, the lines are followed by one 92-byte record per line: the line's numbers
// (times, status, record offset and length) and where each of its JSON fields lies in it, as
// ParseLine read them when the segment was written, so that an exact lookup reads a
// capture's fields without parsing JSON (a line whose fields are not plain views, such as an
// escaped string, is marked to be parsed instead); then the length of the lines, 4 bytes.
// After the blocks comes the table: the first key of every block, one 32-byte entry per
// block (offset, compressed and plain length, checksum, flags), and the key table: an
// open-addressing hash table, at most 3/4 full, of 8-byte slots (a key's 32-bit fingerprint
// and the block where its lines begin; keytable.go). Then the head: the first key of every
// 32nd block (the top level, which a reader keeps on its heap: about 0.15 bytes per capture)
// and a CRC-32C of every 64 KiB of the table. Then an 80-byte footer: magic, format, counts,
// section offsets, the head's CRC-32C and its own. An exact lookup reads a slot or two of
// the key table (one cache line) and decodes the block it names; a prefix query searches
// the top level, then the first keys, and reads blocks in order. A block never starts
// inside the lines of one key unless that key alone fills more than 1 MiB, and then the
// block is marked as continuing.
//
// That is format 3. Segments of format 2, written before it, are still read: their blocks
// hold the lines alone (parsed when looked up) and their table a Bloom filter over the keys
// (64-byte blocks, one cache line a probe) in place of the key table.
//
// Opening a segment reads only its footer and head: it checks the size against the
// manifest, both checksums and the top level's order, so a torn file or a corrupt footer or
// head is refused at open with a *DamageError naming it, whatever the archive's size. Each
// 64 KiB of the table is checked against its checksum the first time a lookup reads it, and
// every block each time, so a later bit flip is an error naming the file, never a wrong
// answer; Verify checks everything.
//
// # Commits and compaction
//
// Each release commit adds one segment holding only that commit's lines: O(captures released
// or tombstoned in it). Segments are then merged by size tier: a segment of L lines is in tier
// floor(log4 L); whenever a tier holds 4 segments they are merged into one, which holds at
// least 4 times the lines of the smallest and so lands at least one tier higher. A line is
// therefore rewritten at most once per tier, log4(N)+1 times for N lines (12 at 10 million,
// 14 at 100 million: the write amplification), and a generation has at most 3 segments per
// tier (the read amplification, which the key tables soften: an exact lookup decodes blocks only
// in the segments whose key table holds the key's fingerprint). A merge keeps
// every line: the lines of one capture (a tombstone and, later, its release) are combined
// when read (Merge), as they always were.
//
// The manifest also carries the generation's totals (captures released and embargoed, and
// embargoed captures per release day), updated per commit from the lines of the keys the
// commit touches, so the lookup never counts the archive.
//
// A commit writes its segments under a temporary directory, then (journaled by the caller)
// renames them into public/index/, replaces manifest.json, and removes the segments the new
// manifest no longer lists. A reader that opened the old manifest keeps its mapped segments
// after they are removed; one that finds a segment gone reads the manifest again.
package pubindex
