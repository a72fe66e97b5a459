package public

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
)

// Status is public/state.json: what the last commit made public, and when the last pass ran.
// The lookup service reloads the public CDXJ when Generation changes.
type Status struct {
	Generation  int64      `json:"generation"`   // grows by one with every commit
	LastPass    time.Time  `json:"last_pass"`    // the `now` of the last pass, whether or not it published anything
	NextRelease *time.Time `json:"next_release"` // the earliest release time after LastPass; null when nothing waits
	Released    int64      `json:"released"`     // captures released so far
	Tombstoned  int64      `json:"tombstoned"`   // tombstones published so far
	Software    string     `json:"software,omitempty"`
	// AheadOfClock says that the last pass ran with a `now` more than ClockSlack ahead of the
	// wall clock of the machine that ran it (release --now in the future): what it released is
	// public before its release time. Omitted when false.
	AheadOfClock bool `json:"ahead_of_clock,omitempty"`
}

// ClockSlack is how far a pass's `now` may be ahead of its machine's clock before the pass
// counts as ahead of the clock (Status.AheadOfClock) and `archivectl release` warns.
const ClockSlack = 5 * time.Minute

// Ahead reports whether now is ahead of the wall clock wall by more than ClockSlack.
func Ahead(now, wall time.Time) bool { return now.Sub(wall) > ClockSlack }

// ReadStatus reads state.json from the public directory fsys; a missing file is the zero Status
// (generation 0, no pass yet).
func ReadStatus(fsys fs.FS) (Status, error) {
	var s Status
	b, err := fs.ReadFile(fsys, layout.StateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read public/%s: %w", layout.StateFile, err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("public/%s: %w", layout.StateFile, err)
	}
	return s, nil
}

// MarshalStatus renders state.json as the releaser writes it: indented, with a final newline.
func MarshalStatus(s Status) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	return append(b, '\n'), nil
}
