package lookup

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// stateFile is the releaser's commit point: replaced atomically at the end of every pass.
const stateFile = "state.json"

// publicState is what the lookup reads of public/state.json.
type publicState struct {
	Generation  int64      `json:"generation"`
	LastPass    *time.Time `json:"last_pass"`
	NextRelease *time.Time `json:"next_release"`
}

// stamp identifies one version of state.json cheaply, without reading it.
type stamp struct {
	mod  time.Time
	size int64
}

// statState returns the stamp of state.json; a missing file has the zero stamp.
func statState(fsys fs.FS) (stamp, error) {
	fi, err := fs.Stat(fsys, stateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return stamp{}, nil
	}
	if err != nil {
		return stamp{}, fmt.Errorf("stat public/%s: %w", stateFile, err)
	}
	return stamp{fi.ModTime(), fi.Size()}, nil
}

// readState reads state.json; a missing file is generation 0, no pass yet.
func readState(fsys fs.FS) (publicState, error) {
	var st publicState
	b, err := fs.ReadFile(fsys, stateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read public/%s: %w", stateFile, err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("public/%s: %w", stateFile, err)
	}
	return st, nil
}
