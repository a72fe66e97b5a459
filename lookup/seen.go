package lookup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public/pubindex"
)

// seen is what Refresh last read of the two small files that say what is public: state.json
// and the index manifest. Both are replaced whole by a commit, so comparing their bytes tells
// a new version from the old one whatever the file system's timestamps.
type seen struct {
	state, manifest []byte // nil when the file is missing
}

func (a seen) equal(b seen) bool {
	return bytes.Equal(a.state, b.state) && bytes.Equal(a.manifest, b.manifest) &&
		(a.state == nil) == (b.state == nil) && (a.manifest == nil) == (b.manifest == nil)
}

// look reads state.json and the index manifest of the public directory fsys.
func look(fsys fs.FS) (seen, error) {
	var s seen
	var err error
	if s.state, err = readSmall(fsys, layout.StateFile); err != nil {
		return s, err
	}
	s.manifest, err = readSmall(fsys, path.Join(pubindex.Dir, pubindex.ManifestFile))
	return s, err
}

// readSmall reads one small file of the public directory; a missing one is nil.
func readSmall(fsys fs.FS, name string) ([]byte, error) {
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read public/%s: %w", name, err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}
