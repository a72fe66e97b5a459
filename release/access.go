package release

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// accessRules is a pass's view of public/access/embargo.aclj: per SURT key, the captures under
// embargo (tombstoned, not yet released) and a URL of theirs. A commit that tombstones or releases
// a tombstoned capture writes the file anew, in the same journaled commit as the shards and
// tombstones, so the file always agrees with the index marks that commit applies. The pass holds
// only what its commits change, and each commit merges that into the file in one sequential copy:
// its cost is the file's bytes, not a parse of every rule. When the file is missing or unreadable,
// the whole set is rebuilt from the index once and written by the next commit.
type accessRules struct {
	all     map[string]*public.EmbargoRule // the whole set rebuilt from the index, until written
	changes map[string]public.RuleChange   // what the marks noted since the file was written
	changed bool                           // since the file was last written
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

// access returns the pass's rules: rules, once a commit has read them; else it checks
// public/access/embargo.aclj; when it is missing or unreadable they are rebuilt from the index
// (every tombstoned capture), and written by the next commit.
func (p *pass) access(rules *accessRules) (*accessRules, error) {
	if rules != nil {
		return rules, nil
	}
	a := &accessRules{changes: map[string]public.RuleChange{}}
	f, err := os.Open(layout.EmbargoACL(p.r.dir))
	if err == nil {
		err = public.MergeEmbargoACL(f, io.Discard, nil)
		f.Close()
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			p.r.opt.Logger.Warn("rebuilding the embargo access rules from the index", "file", layout.EmbargoACL(p.r.dir), "err", err)
		}
		a.all, a.changed = map[string]*public.EmbargoRule{}, true
		if err := p.ix.Tombstoned(func(e store.Entry) error {
			a.add(e)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("access rules: %w", err)
		}
	}
	return a, nil
}

// add counts a capture that is now under embargo with a public tombstone.
func (a *accessRules) add(e store.Entry) {
	k := embargoKey(e)
	a.changed = true
	if a.all == nil {
		c := a.changes[k]
		c.Captures++
		if c.URL == "" || e.URL < c.URL {
			c.URL = e.URL
		}
		a.changes[k] = c
		return
	}
	r := a.all[k]
	if r == nil {
		r = &public.EmbargoRule{Key: k, URL: e.URL}
		a.all[k] = r
	}
	r.Captures++
	if e.URL < r.URL {
		r.URL = e.URL
	}
}

// remove uncounts a tombstoned capture that is released; its key's rule goes with its last one.
func (a *accessRules) remove(e store.Entry) {
	k := embargoKey(e)
	a.changed = true
	if a.all == nil {
		c := a.changes[k]
		c.Captures--
		a.changes[k] = c
		return
	}
	if r := a.all[k]; r != nil {
		if r.Captures--; r.Captures <= 0 {
			delete(a.all, k)
		}
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
// it renames), and returns the rename the commit must make, or nothing: the whole set when it
// was rebuilt, else the public file with this commit's changes merged in.
func (a *accessRules) write(dataDir string) ([]journalFile, error) {
	if !a.changed {
		return nil, nil
	}
	tmp := filepath.Join(layout.ReleaseTmp(dataDir), layout.EmbargoACLFile)
	if a.all != nil {
		rules := make([]public.EmbargoRule, 0, len(a.all))
		for _, r := range a.all {
			rules = append(rules, *r)
		}
		b, err := public.FormatEmbargoACL(rules)
		if err == nil {
			err = writeFile(tmp, b)
		}
		if err != nil {
			return nil, err
		}
	} else if err := mergeAccess(layout.EmbargoACL(dataDir), tmp, a.changes); err != nil {
		return nil, err
	}
	a.all, a.changes, a.changed = nil, map[string]public.RuleChange{}, false
	return []journalFile{{Tmp: layout.ReleaseTmpDir + "/" + layout.EmbargoACLFile, Public: layout.AccessDir + "/" + layout.EmbargoACLFile}}, nil
}

// mergeAccess writes the access rules file from, with changes merged in, to tmp (unsynced).
func mergeAccess(from, tmp string, changes map[string]public.RuleChange) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := createPublic(tmp)
	if err != nil {
		return err
	}
	if err := public.MergeEmbargoACL(in, out, changes); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", from, err)
	}
	return out.Close()
}

// commitAccess writes public/access/embargo.aclj in a commit of its own when a pass made no other
// commit and the file is missing (an archive of an earlier version, or one never tombstoned):
// the commit changes nothing else, so state.json keeps its generation. It takes and returns the
// public side as the last commit left it (pub).
func (p *pass) commitAccess(pub published) (published, error) {
	if _, err := os.Stat(layout.EmbargoACL(p.r.dir)); !errors.Is(err, fs.ErrNotExist) {
		return pub, err
	}
	a, err := p.access(pub.rules)
	if err != nil {
		return pub, err
	}
	pub.rules = a
	files, err := a.write(p.r.dir)
	if err != nil {
		return pub, err
	}
	j := &journal{Pass: p.now, Files: files, LogSize: pub.logSize, State: pub.state}
	_, err = journalAndApply(p.r.dir, p.ix, j, nil)
	return pub, err
}
