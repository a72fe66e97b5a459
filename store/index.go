package store

import (
	"log/slog"
	"time"

	"github.com/archivectl/archivectl/store/index"
)

// The repository's index (package store/index) under the names its users know it by: the
// release pass, the commands and the tests read and mark captures through them.
type (
	Index             = index.Index
	Entry             = index.Entry
	Location          = index.Location
	CaptureState      = index.CaptureState
	Mark              = index.Mark
	PendingMark       = index.PendingMark
	Counts            = index.Counts
	Problem           = index.Problem
	DamagedIndexError = index.DamagedIndexError
)

// The states of a capture, and the embargo source of a withheld requisite (index.SourceRequisite).
const (
	Sealed          = index.Sealed
	Tombstoned      = index.Tombstoned
	Released        = index.Released
	SourceRequisite = index.SourceRequisite
)

// ErrIndexDamaged is index.ErrIndexDamaged: wrapped by every index error that finds index.db damaged.
var ErrIndexDamaged = index.ErrIndexDamaged

// OpenIndex opens the index at path as index.Open does, logging an upgrade on slog.Default.
func OpenIndex(path string, timeout time.Duration) (*Index, error) {
	return index.Open(path, timeout, slog.Default())
}
