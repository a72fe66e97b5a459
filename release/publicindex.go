package release

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// indexCommit writes the public index's part of a commit of generation gen: one segment of the
// commit's CDXJ lines (and the merges the tier rule asks for), under release-tmp/, unsynced
// (commit syncs them with the commit's other files). It returns the public index as the last
// commit left it, reopened from prev (the set to close from then on, with an error too), the index
// commit to journal and the renames of its segments.
func (p *pass) indexCommit(prev *pubindex.Set, fs *fileSet, gen int64) (*pubindex.Set, *pubindex.Commit, []journalFile, error) {
	var lines [][]byte
	for _, w := range fs.files {
		lines = append(lines, w.lines...)
	}
	set, err := pubindex.Open(os.DirFS(layout.Public(p.r.dir)), prev) // opens the new segments of earlier commits only
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := pubindex.PrepareUnsynced(set, layout.Public(p.r.dir), layout.ReleaseTmp(p.r.dir), gen, lines)
	if err != nil {
		return set, nil, nil, err
	}
	var files []journalFile
	for _, f := range c.Files {
		rel, err := filepath.Rel(p.r.dir, f.Tmp)
		if err != nil {
			return set, nil, nil, err
		}
		files = append(files, journalFile{Tmp: filepath.ToSlash(rel), Public: pubindex.Dir + "/" + f.Name})
	}
	return set, &pubindex.Commit{Manifest: c.Manifest, Remove: c.Remove}, files, nil
}

// ensureIndex makes the public index current before a pass commits to it, and returns it open
// (the pass keeps it across its commits): one missing while CDXJ files exist, damaged, or of
// another generation than state.json (a commit journaled by a version without the index) is
// rebuilt from the CDXJ files; files a killed commit or rebuild left in public/index/ are
// removed. Opening reads the segments' footers and heads only (their tables are checked as
// the pass's commits read them).
func (r *Releaser) ensureIndex(ctx context.Context) (*pubindex.Set, error) {
	pub := layout.Public(r.dir)
	st, err := readStatus(r.dir)
	if err != nil {
		return nil, err
	}
	why := ""
	set, err := pubindex.Open(os.DirFS(pub), nil)
	if err == nil {
		if err = set.Check(); err != nil { // a segment's checksums: what the commit's merge would trip over
			set.Close()
		}
	}
	var d *pubindex.DamageError
	switch {
	case errors.As(err, &d):
		why = d.Error()
	case err != nil:
		return nil, err
	case set.Segments() > 0 && set.Manifest.Generation != st.Generation:
		why = fmt.Sprintf("it is of generation %d, %s of %d", set.Manifest.Generation, layout.StateFile, st.Generation)
		set.Close()
	}
	if why != "" {
		if err := r.rebuildIndex(ctx, st, why); err != nil {
			return nil, err
		}
		if set, err = pubindex.Open(os.DirFS(pub), nil); err != nil {
			return nil, err
		}
	}
	if err := pubindex.Clean(pub); err != nil {
		set.Close()
		return nil, err
	}
	return set, nil
}

// rebuildIndex rebuilds the public index from the CDXJ files, saying why.
func (r *Releaser) rebuildIndex(ctx context.Context, st public.Status, why string) error {
	r.opt.Logger.Warn("rebuilding the public index from the public CDXJ files", "why", why)
	m, err := pubindex.Rebuild(ctx, layout.Public(r.dir), st.Generation, r.opt.Logger)
	if err != nil {
		return fmt.Errorf("rebuild the public index: %w", err)
	}
	r.opt.Logger.Info("public index rebuilt", "generation", m.Generation, "released", m.Stats.Released,
		"embargoed", m.Stats.Embargoed, "malformed_lines", m.Stats.Malformed)
	return nil
}

// RebuildIndex rebuilds the public index of dataDir from its public CDXJ files, under the
// release lock (so never during a pass), and returns its manifest. A lookup serving the old
// index switches to the new one at its next check.
func RebuildIndex(ctx context.Context, dataDir string, opt Options) (pubindex.Manifest, error) {
	r := New(dataDir, opt)
	lock, err := lockfile.Acquire(layout.ReleaseLock(dataDir), r.opt.LockTimeout)
	if err != nil {
		return pubindex.Manifest{}, err
	}
	defer lock.Release()
	if j, err := readJournal(dataDir); err != nil || j != nil {
		if err != nil {
			return pubindex.Manifest{}, err
		}
		return pubindex.Manifest{}, fmt.Errorf("a release commit is pending in %s: run archivectl release to finish it first", layout.ReleaseJournal(dataDir))
	}
	st, err := readStatus(dataDir)
	if err != nil {
		return pubindex.Manifest{}, err
	}
	m, err := pubindex.Rebuild(ctx, layout.Public(dataDir), st.Generation, r.opt.Logger)
	if err != nil {
		return m, fmt.Errorf("rebuild the public index: %w", err)
	}
	return m, nil
}
