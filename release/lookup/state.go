package lookup

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/archivectl/archivectl/store/layout"
)

// stamp identifies one version of state.json cheaply, without reading it.
type stamp struct {
	mod  time.Time
	size int64
}

// statState returns the stamp of state.json; a missing file has the zero stamp.
func statState(fsys fs.FS) (stamp, error) {
	fi, err := fs.Stat(fsys, layout.StateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return stamp{}, nil
	}
	if err != nil {
		return stamp{}, fmt.Errorf("stat public/%s: %w", layout.StateFile, err)
	}
	return stamp{fi.ModTime(), fi.Size()}, nil
}
