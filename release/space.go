package release

import (
	"fmt"
	"syscall"
)

// Room a commit keeps for what applying its journal writes besides the journal and the audit-log
// lines: state.json and its temp file, and the index pages its marks rewrite (at most one page
// of 4 KiB per mark, the index growing into new pages when it has no free ones).
const (
	stateRoom   = 64 << 10
	roomPerMark = 4 << 10
)

// roomToCommit fails, wrapping ENOSPC, when the file system of dataDir has less free space than
// the commit of j (whose journal is journalSize bytes) needs once it is journaled. It cannot
// reserve the space: a crawl writing to the same disk meanwhile can still take it.
func roomToCommit(dataDir string, j *journal, journalSize int) error {
	need := int64(journalSize) + int64(len(j.Log)) + stateRoom + int64(len(j.Marks))*roomPerMark
	free, ok := freeSpace(dataDir)
	if !ok || free >= need {
		return nil
	}
	return fmt.Errorf("committing needs %s free, %s are: %w", mib(need), mib(free), syscall.ENOSPC)
}

// mib is n bytes in MiB, for messages.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
