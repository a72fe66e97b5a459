package release

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/archivectl/archivectl/store/layout"
)

// State is public/state.json: what the last commit made public. The lookup service reloads
// the public CDXJ when Generation changes.
type State struct {
	Generation  int64      `json:"generation"`   // grows by one with every commit
	LastPass    time.Time  `json:"last_pass"`    // the `now` of the pass that made the last commit
	NextRelease *time.Time `json:"next_release"` // the earliest release time after LastPass; null when nothing waits
	Released    int64      `json:"released"`     // captures released so far
	Tombstoned  int64      `json:"tombstoned"`   // tombstones published so far
	Software    string     `json:"software,omitempty"`
}

// ReadState reads public/state.json under dataDir; a missing file is the zero Status.
func ReadState(dataDir string) (State, error) {
	var s State
	b, err := os.ReadFile(layout.State(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("release: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("release: %s is damaged: %w", layout.State(dataDir), err)
	}
	return s, nil
}

// marshalState renders state.json with a final newline.
func marshalState(s State) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("release: state: %w", err)
	}
	return append(b, '\n'), nil
}
