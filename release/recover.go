package release

import (
	"os"
	"path/filepath"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public/pubindex"
	"github.com/archivectl/archivectl/store"
)

// recover finishes a commit that an interrupted pass left, then deletes unjournaled temp files.
func (r *Releaser) recover(ix *store.Index) error {
	j, err := readJournal(r.dir)
	if err != nil {
		return err
	}
	if j != nil {
		r.opt.Logger.Warn("finishing an interrupted release commit", "pass", j.Pass, "files", len(j.Files), "marks", len(j.Marks))
		if err := apply(r.dir, ix, j, nil); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(layout.ReleaseTmp(r.dir)); err != nil {
		return err
	}
	return nil
}

// prepareDirs creates public/ (world-readable) and an empty release-tmp/.
func prepareDirs(dataDir string) error {
	for _, d := range []string{layout.Public(dataDir), layout.Shards(dataDir), layout.Tombstones(dataDir), filepath.Join(layout.Public(dataDir), pubindex.Dir), layout.Access(dataDir), layout.Embargoed(dataDir)} {
		if err := os.MkdirAll(d, publicDirMode); err != nil {
			return err
		}
		if err := os.Chmod(d, publicDirMode); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(layout.ReleaseTmp(dataDir), 0o700); err != nil {
		return err
	}
	return nil
}
