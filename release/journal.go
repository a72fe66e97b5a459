package release

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/release/pubindex"
	"github.com/archivectl/archivectl/release/public"
	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/durable"
	"github.com/archivectl/archivectl/store/layout"
)

// journal is one commit of a pass, written durably before anything under public/ changes.
// Applying it is idempotent, so a commit interrupted anywhere is finished by replaying it.
type journal struct {
	Pass    time.Time     `json:"pass"`
	Files   []journalFile `json:"files"`    // temp files to rename into public/, in order
	Marks   []store.Mark  `json:"marks"`    // index state changes
	LogSize int64         `json:"log_size"` // release-log.jsonl's size before this commit
	Log     string        `json:"log"`      // the lines this commit appends to it
	State   public.Status `json:"state"`    // the new state.json
	// Index is the public index's new manifest and the segments it no longer lists; its new
	// segments are among Files. Absent in a journal of a version without the index (the next
	// pass then rebuilds the index).
	Index *pubindex.Commit `json:"index,omitempty"`
}

// journalFile is one rename of a commit: Tmp relative to the data directory, Public relative to public/.
type journalFile struct {
	Tmp    string `json:"tmp"`
	Public string `json:"public"`
}

// crashHook, when set (by tests only), is called at every step of a commit and of writing
// its files, so that a test can kill the process at a chosen point.
var crashHook func(step string)

func crashPoint(step string) {
	if crashHook != nil {
		crashHook(step)
	}
}

// readJournal returns the pending commit, if a pass left one.
func readJournal(dataDir string) (*journal, error) {
	b, err := os.ReadFile(layout.ReleaseJournal(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		// The journal is written to a temp name and renamed, so a torn one means damage, not a crash.
		return nil, fmt.Errorf("release: %s is damaged (%w): inspect it, then delete it to roll the commit back", layout.ReleaseJournal(dataDir), err)
	}
	return &j, nil
}

// commit makes j durable, then applies it. Its temp files are already synced; syncing their
// directory too means a journal never outlives the names it refers to.
func commit(dataDir string, ix *store.Index, j *journal) error {
	if err := durable.SyncDir(layout.ReleaseTmp(dataDir)); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	b, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("release: journal: %w", err)
	}
	if err := durable.ReplaceFile(layout.ReleaseJournal(dataDir), b, publicFileMode); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	crashPoint("journal")
	return apply(dataDir, ix, j)
}

// apply performs a durable journal's commit; every step may run again after a crash.
func apply(dataDir string, ix *store.Index, j *journal) error {
	dirs := map[string]bool{}
	for _, f := range j.Files {
		dst := filepath.Join(layout.Public(dataDir), filepath.FromSlash(f.Public))
		err := os.Rename(filepath.Join(dataDir, f.Tmp), dst)
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dst); serr == nil {
				continue // renamed before the crash
			}
			return fmt.Errorf("release: commit of %s lost both %s and %s: run archivectl verify", j.Pass.Format(time.RFC3339), f.Tmp, f.Public)
		}
		if err != nil {
			return fmt.Errorf("release: publish %s: %w", f.Public, err)
		}
		dirs[filepath.Dir(dst)] = true
		crashPoint("rename")
	}
	for d := range dirs {
		if err := durable.SyncDir(d); err != nil {
			return fmt.Errorf("release: %w", err)
		}
	}
	crashPoint("renamed")
	if j.Log != "" {
		if err := appendLog(layout.ReleaseLog(dataDir), j.LogSize, []byte(j.Log)); err != nil {
			return err
		}
	}
	crashPoint("logged")
	if len(j.Marks) > 0 {
		if err := ix.Mark(j.Marks); err != nil {
			return fmt.Errorf("release: mark the index: %w", err)
		}
	}
	crashPoint("marked")
	if j.Index != nil { // the index's commit point: the new segments are in place, the old ones still there
		if err := pubindex.WriteManifest(layout.Public(dataDir), j.Index.Manifest); err != nil {
			return fmt.Errorf("release: %w", err)
		}
	}
	crashPoint("indexed")
	sb, err := public.MarshalStatus(j.State)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	// state.json.tmp, written first, is a name readers of public/ ignore.
	if err := durable.ReplaceFile(layout.State(dataDir), sb, publicFileMode); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	crashPoint("state")
	if j.Index != nil {
		if err := pubindex.RemoveSegments(layout.Public(dataDir), j.Index.Remove); err != nil {
			return fmt.Errorf("release: %w", err)
		}
	}
	if err := os.Remove(layout.ReleaseJournal(dataDir)); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	if err := durable.SyncDir(dataDir); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	crashPoint("done")
	return nil
}
