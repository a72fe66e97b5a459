package release

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
	"github.com/archivectl/archivectl/store"
)

// crashHook, when set (by tests only), is called at every crash point of a pass, so that a test
// can kill the process there (TestKillDuringPass kills a pass at every one).
var crashHook func(step string)

// crashPoint marks a crash point, where a kill leaves a state of its own: each follows a change of
// what the data directory holds, so that no two fire back to back at one state. In the order they
// fire in a commit, and what the next pass does with a commit killed there
// (docs/architecture.md#crash-points):
//
//	written  bytes the pass made (a warcinfo record, tombstones) reached a temp file  rolled back
//	copied   a range of sealed bytes copied into a temp shard (by the copier)         rolled back
//	staged   every file of the commit written under release-tmp/, unsynced            rolled back
//	files    every file synced, the journal's temp file written                       rolled back
//	journal  the journal in place                                                     rolled forward
//	rename   one more file renamed into public/                                       rolled forward
//	synced   the directories synced, the audit log appended, the index marked,        rolled forward
//	         state.json's temp file written
//	indexed  the public index's new manifest written (a commit with an index)         rolled forward
//	state    state.json replaced: the commit is public                                rolled forward
//	done     the old segments and the journal removed                                 nothing to do
//
// The names are literals, so that the kill test finds every one in the source.
func crashPoint(step string) {
	if crashHook != nil {
		crashHook(step)
	}
}

// commit is the journaled commit of what a stage staged after pub: it finishes the staged files
// and writes what else the commit changes under release-tmp/ (the access rules its marks make, the
// public index's segments) while the copier may still be copying the shards, then journals the
// whole commit and applies it (journalAndApply), and returns the public side as the commit left it.
// Until the journal is durable a failure deletes every temp file; after, the next pass completes
// the commit. A batch whose every capture was held back commits nothing.
func (p *pass) commit(pub published, s *staged) (_ published, err error) {
	journaled := false
	defer func() {
		if err != nil && !journaled { // a journaled commit's files are the next pass's to publish
			s.files.abort()
		}
		err = diskFull(err, s.captures, journaled, p.r.dir)
	}()
	if len(s.marks) == 0 {
		s.files.abort() // nothing to commit: every capture was held back
		return pub, nil
	}
	rules, err := p.access(pub.rules)
	if err != nil {
		return pub, err
	}
	pub.rules = rules
	rules.note(s.entries, s.marks)
	files, open, err := s.files.finish(p.r.dir)
	if err != nil {
		return pub, err
	}
	defer func() {
		if open != nil { // failed before journalAndApply took them
			s.files.wait()
			closeAll(open)
		}
	}()
	acl, err := rules.write(p.r.dir) // the access rules these marks make
	if err != nil {
		return pub, err
	}
	files = append(files, acl...)
	st := pub.state
	st.Generation++
	index, ic, segs, err := p.indexCommit(pub.index, &s.files, st.Generation)
	if index != nil {
		pub.index = index
	}
	if err != nil {
		return pub, err
	}
	files = append(files, segs...)
	crashPoint("staged") // every file of the commit written under release-tmp/, the last copies may still run
	if err := s.files.wait(); err != nil {
		return pub, err
	}
	st.LastPass = p.now
	st.NextRelease = p.next
	st.Released += int64(s.released)
	st.Tombstoned += int64(s.tombstoned)
	st.Software = p.r.opt.Software
	st.AheadOfClock = p.ahead
	log := s.log.Bytes()
	j := &journal{Pass: p.now, Files: files, Marks: s.marks, LogSize: pub.logSize, Log: string(log), State: st, Index: ic}
	toSync := open
	open = nil // journalAndApply closes them
	if journaled, err = journalAndApply(p.r.dir, p.ix, j, toSync); err != nil {
		return pub, err
	}
	return published{state: st, logSize: pub.logSize + int64(len(log)), serial: s.files.serial, index: pub.index, rules: rules}, nil
}

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

// journalAndApply makes j durable (writeJournal), then applies it (apply); journaled says whether
// the journal was written. The files given open are closed.
func journalAndApply(dataDir string, ix *store.Index, j *journal, open []*os.File) (journaled bool, err error) {
	marks, err := writeJournal(dataDir, ix, j, open)
	if err != nil {
		return false, err
	}
	crashPoint("journal") // the journal in place: from here the commit is rolled forward
	return true, apply(dataDir, ix, j, marks)
}

// writeJournal makes j durable, and returns its index marks prepared (nil when it has none). Every
// file the commit renames — those given open (closed here) and the others, opened by name — its
// names in release-tmp/ and the journal's temp file are synced together (the journal is encoded
// while the files sync); the journal is renamed into place once all are durable, so that it never
// outlives what it refers to. Meanwhile the index's marks are prepared in a write transaction
// that apply commits, so that only the index's write is left for after the journal. Before
// writing the journal, it makes sure the disk has room for what applying it writes, so that a
// full disk fails the commit while it can still be rolled back.
func writeJournal(dataDir string, ix *store.Index, j *journal, open []*os.File) (*store.PendingMark, error) {
	path := layout.ReleaseJournal(dataDir)
	syncTmpDir := func() error { return durable.SyncDir(layout.ReleaseTmp(dataDir)) }
	writeTemp := func() error {
		b, err := json.Marshal(j)
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		if err := roomToCommit(dataDir, j, len(b)); err != nil {
			return err
		}
		return durable.WriteFile(path+".tmp", b, publicFileMode)
	}
	var marks *store.PendingMark
	prepareMarks := func() error {
		if len(j.Marks) == 0 {
			return nil
		}
		var err error
		if marks, err = ix.PrepareMark(j.Marks); err != nil {
			return fmt.Errorf("mark the index: %w", err)
		}
		return nil
	}
	// Every file's fsync, the temp directory's, the journal's write and the index marks' preparation
	// wait for the disk together; the journal is renamed into place once all are durable.
	err := inParallel(append(syncFiles(dataDir, j, open), syncTmpDir, writeTemp, prepareMarks)...)
	if err == nil {
		crashPoint("files") // every file durable, the journal not yet in place
		err = durable.Rename(path+".tmp", path)
	}
	if err != nil {
		if marks != nil {
			marks.Rollback()
		}
		os.Remove(path + ".tmp")
		return nil, err
	}
	return marks, nil
}

// syncFiles is a step of writeJournal for each file j renames: one syncs and closes a file given
// open, the others open their file by name to sync it.
func syncFiles(dataDir string, j *journal, open []*os.File) []func() error {
	var steps []func() error
	isOpen := map[string]bool{}
	for _, f := range open {
		isOpen[f.Name()] = true
		steps = append(steps, func() error {
			if err := durable.SyncClose(f); err != nil {
				return fmt.Errorf("sync %s: %w", f.Name(), err)
			}
			return nil
		})
	}
	for _, f := range j.Files {
		if p := filepath.Join(dataDir, filepath.FromSlash(f.Tmp)); !isOpen[p] {
			steps = append(steps, func() error { return syncFile(p) })
		}
	}
	return steps
}

// apply performs a durable journal's commit; every step may run again after a crash. marks, when
// not nil, are j's marks prepared (and then committed or rolled back here); without, apply marks
// the index itself.
func apply(dataDir string, ix *store.Index, j *journal, marks *store.PendingMark) (err error) {
	if marks != nil {
		defer func() {
			if marks != nil { // apply failed before committing them
				marks.Rollback()
			}
		}()
	}
	dirs, err := renameAll(dataDir, j)
	if err != nil {
		return err
	}
	// The renames' directories, the audit log, the index and state.json's temp file do not depend
	// on one another: their syncs wait for the disk together. All are durable before state.json,
	// the commit point, is renamed into place.
	sb, err := public.MarshalStatus(j.State)
	if err != nil {
		return err
	}
	state := layout.State(dataDir)
	writeStateTemp := func() error {
		// state.json.tmp is a name readers of public/ ignore.
		return durable.WriteFile(state+".tmp", sb, publicFileMode)
	}
	appendAuditLog := func() error {
		if j.Log == "" {
			return nil
		}
		return appendLog(layout.ReleaseLog(dataDir), j.LogSize, []byte(j.Log))
	}
	pending := marks
	marks = nil // markIndex commits them: nothing left to roll back
	markIndex := func() error {
		var err error
		switch {
		case pending != nil:
			err = pending.Commit()
		case len(j.Marks) > 0:
			err = ix.Mark(j.Marks)
		}
		if err != nil {
			return fmt.Errorf("mark the index: %w", err)
		}
		return nil
	}
	steps := []func() error{writeStateTemp}
	for d := range dirs {
		steps = append(steps, func() error { return durable.SyncDir(d) })
	}
	if err := inParallel(append(steps, appendAuditLog, markIndex)...); err != nil {
		return err
	}
	crashPoint("synced") // renamed, logged, marked, state.json's temp file written
	if j.Index != nil {  // the index's commit point: the new segments are in place, the old ones still there
		if err := pubindex.WriteManifest(layout.Public(dataDir), j.Index.Manifest); err != nil {
			return err
		}
		crashPoint("indexed")
	}
	if err := durable.Rename(state+".tmp", state); err != nil {
		return err
	}
	crashPoint("state") // state.json replaced: the commit is public
	if j.Index != nil {
		if err := pubindex.RemoveSegments(layout.Public(dataDir), j.Index.Remove); err != nil {
			return err
		}
	}
	// The journal's removal is not synced: should a crash undo it, the next pass applies this
	// commit again, which writes the same bytes (a later commit's journal, synced, replaces it).
	if err := os.Remove(layout.ReleaseJournal(dataDir)); err != nil {
		return err
	}
	crashPoint("done") // the old segments and the journal removed
	return nil
}

// renameAll renames the files of j into public/, each WARC before its CDXJ, and returns the
// directories it renamed into. A file renamed already, by the commit a crash cut short, is skipped.
func renameAll(dataDir string, j *journal) (map[string]bool, error) {
	dirs := map[string]bool{}
	for _, f := range j.Files {
		dst := filepath.Join(layout.Public(dataDir), filepath.FromSlash(f.Public))
		err := os.Rename(filepath.Join(dataDir, f.Tmp), dst)
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dst); serr == nil {
				continue // renamed before the crash
			}
			return nil, fmt.Errorf("commit of %s lost both %s and %s: run archivectl verify", j.Pass.Format(time.RFC3339), f.Tmp, f.Public)
		}
		if err != nil {
			return nil, fmt.Errorf("publish %s: %w", f.Public, err)
		}
		dirs[filepath.Dir(dst)] = true
		crashPoint("rename") // one more file in public/
	}
	return dirs, nil
}

// recover finishes a commit that an interrupted pass left (rolls it forward), then deletes the
// temp files of one that did not journal (rolls it back).
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

// readJournal returns the pending commit, if a pass left one.
func readJournal(dataDir string) (*journal, error) {
	b, err := os.ReadFile(layout.ReleaseJournal(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		// The journal is written to a temp name and renamed, so a torn one means damage, not a crash.
		return nil, fmt.Errorf("%s is damaged (%w): inspect it, then delete it to roll the commit back", layout.ReleaseJournal(dataDir), err)
	}
	return &j, nil
}

// syncFile fsyncs the file at path.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := durable.SyncClose(f); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

// inParallel runs the steps, each on a goroutine of its own, and returns the first error (in the
// order of the steps), so that an error stays one line: the syncs of a commit wait for the disk
// together rather than one after another.
func inParallel(steps ...func() error) error {
	errs := make([]error, len(steps))
	var wg sync.WaitGroup
	for i, step := range steps {
		wg.Go(func() { errs[i] = step() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
