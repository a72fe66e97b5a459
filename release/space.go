package release

import (
	"errors"
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

// diskFullError is a commit that failed because the disk of the data directory is full.
type diskFullError struct {
	err       error
	captures  int
	journaled bool
	dir       string
}

// Error says, in one line, what became of the commit and what to do.
func (e *diskFullError) Error() string {
	cause := e.err.Error()
	if e.journaled {
		return fmt.Sprintf("the disk is full (%s) after the commit of %d captures was journaled: public/ may show part of it until a pass with free space under %s completes it", cause, e.captures, e.dir)
	}
	return fmt.Sprintf("the disk is full (%s): the %d captures of this commit were not published and public/ is as the last commit left it; free space under %s and run the pass again", cause, e.captures, e.dir)
}

func (e *diskFullError) Unwrap() error { return e.err }

// diskFull is err as a diskFullError when the disk is full (ENOSPC, or too little room to commit).
func diskFull(err error, captures int, journaled bool, dir string) error {
	if err == nil || !errors.Is(err, syscall.ENOSPC) {
		return err
	}
	return &diskFullError{err: err, captures: captures, journaled: journaled, dir: dir}
}
