package release

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/release/public"
	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/layout"
	"github.com/archivectl/archivectl/store/surt"
)

// accessRules is a pass's view of public/access/embargo.aclj: per SURT key, the captures under
// embargo (tombstoned, not yet released) and a URL of theirs. A commit that tombstones or releases
// a tombstoned capture writes the file anew, in the same journaled commit as the shards and
// tombstones, so the file always agrees with the index marks that commit applies.
type accessRules struct {
	rules   map[string]*public.EmbargoRule
	changed bool // since the file was last written
}

// farFuture is later than any release time: Due up to it scans every capture not yet released.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// embargoKey is the SURT key a capture's rule has: the one surt.Key gives now.
func embargoKey(e store.Entry) string {
	if k, err := surt.Key(e.URL); err == nil {
		return k
	}
	return e.SURT
}

// access returns the pass's rules, reading public/access/embargo.aclj the first time; when it is
// missing or unreadable they are rebuilt from the index (every tombstoned capture), and written
// by the next commit.
func (p *pass) access() (*accessRules, error) {
	if p.rules != nil {
		return p.rules, nil
	}
	a := &accessRules{rules: map[string]*public.EmbargoRule{}}
	b, err := os.ReadFile(layout.EmbargoACL(p.r.dir))
	var rules []public.EmbargoRule
	if err == nil {
		rules, err = public.ParseEmbargoACL(b)
	}
	if err == nil {
		for _, r := range rules {
			a.rules[r.Key] = &r
		}
	} else {
		if !errors.Is(err, fs.ErrNotExist) {
			p.r.opt.Logger.Warn("rebuilding the embargo access rules from the index", "file", layout.EmbargoACL(p.r.dir), "err", err)
		}
		a.changed = true
		if err := p.ix.Tombstoned(func(e store.Entry) error {
			a.add(e)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("release: access rules: %w", err)
		}
	}
	p.rules = a
	return a, nil
}

// add counts a capture that is now under embargo with a public tombstone.
func (a *accessRules) add(e store.Entry) {
	k := embargoKey(e)
	r := a.rules[k]
	if r == nil {
		r = &public.EmbargoRule{Key: k, URL: e.URL}
		a.rules[k] = r
	}
	r.Captures++
	if e.URL < r.URL {
		r.URL = e.URL
	}
	a.changed = true
}

// remove uncounts a tombstoned capture that is released; its key's rule goes with its last one.
func (a *accessRules) remove(e store.Entry) {
	k := embargoKey(e)
	if r := a.rules[k]; r != nil {
		if r.Captures--; r.Captures <= 0 {
			delete(a.rules, k)
		}
		a.changed = true
	}
}

// note updates the rules for the marks of one commit, given the entries as they were before it.
func (a *accessRules) note(batch []store.Entry, marks []store.Mark) {
	for i, m := range marks {
		switch e := batch[i]; {
		case m.State == store.Tombstoned && e.State == store.Sealed:
			a.add(e)
		case m.State == store.Released && e.State == store.Tombstoned:
			a.remove(e)
		}
	}
}

// write renders the rules into release-tmp/ when they changed, unsynced (commit syncs every file
// it renames), and returns the rename the commit must make, or nothing.
func (a *accessRules) write(dataDir string) ([]journalFile, error) {
	if !a.changed {
		return nil, nil
	}
	rules := make([]public.EmbargoRule, 0, len(a.rules))
	for _, r := range a.rules {
		rules = append(rules, *r)
	}
	b, err := public.FormatEmbargoACL(rules)
	if err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	tmp := filepath.Join(layout.ReleaseTmp(dataDir), layout.EmbargoACLFile)
	if err := writeFile(tmp, b); err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	a.changed = false
	return []journalFile{{Tmp: layout.ReleaseTmpDir + "/" + layout.EmbargoACLFile, Public: layout.AccessDir + "/" + layout.EmbargoACLFile}}, nil
}

// commitAccess writes public/access/embargo.aclj in a commit of its own when a pass made no other
// commit and the file is missing (an archive of an earlier version, or one never tombstoned):
// the commit changes nothing else, so state.json keeps its generation.
func (p *pass) commitAccess() error {
	if _, err := os.Stat(layout.EmbargoACL(p.r.dir)); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	a, err := p.access()
	if err != nil {
		return err
	}
	files, err := a.write(p.r.dir)
	if err != nil {
		return err
	}
	j := &journal{Pass: p.now, Files: files, LogSize: p.logSize, State: p.state}
	_, err = commit(p.r.dir, p.ix, j, nil)
	return err
}
