package release

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// accessRules is a pass's view of what pywb is told is under embargo, split by release day
// (public.ReleaseDay): public/embargoed/embargoed-DAY.cdxj holds the tombstone lines of the
// captures under embargo (tombstoned, not yet released) that release that day, and
// public/access/embargo-DAY.aclj a block rule per URL key with such a capture. A commit that
// tombstones or releases captures writes the files of their days anew, in the same journaled
// commit as the shards and tombstones, so the files always agree with the index marks that commit
// applies: a released capture's tombstone line leaves pywb's index as its released line comes
// in, and a URL stays blocked while any of its captures is under embargo (in some day's file).
// The pass holds only what its commits change, and each commit merges that into the files of the
// days it touches, one sequential copy each: its cost is those days' lines, not everything under
// embargo. When the days are missing (an archive of an earlier version, with its one
// access/embargo.aclj) the whole set is rebuilt from the index once and written by the next
// commit, which empties embargo.aclj; a day file found damaged is rebuilt from the index alone.
type accessRules struct {
	ix      *store.Index
	days    map[string]*dayChange // what the marks noted since the files were written, by release day
	rebuild bool                  // every day file is written anew from the index (others emptied), days applied
	legacy  bool                  // a non-empty access/embargo.aclj (earlier versions) is there: the next write empties it
	changed bool                  // since the files were last written
	swept   bool                  // the days left empty by earlier commits are removed (sweepDays)
	err     error                 // note's first error, write's to return
	log     *slog.Logger
}

// dayChange is what a commit changes in the files of one release day.
type dayChange struct {
	rules  map[string]public.RuleChange // URL key → the change of its rule
	add    map[string][]byte            // capture id → its tombstone line
	remove map[string]bool              // capture ids whose lines go
}

func newDayChange() *dayChange {
	return &dayChange{rules: map[string]public.RuleChange{}, add: map[string][]byte{}, remove: map[string]bool{}}
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

// errFound stops a scan at its first entry.
var errFound = errors.New("found")

// access returns the pass's rules: rules, once a commit has read them; else it reads them, deciding
// whether the whole set must be rebuilt from the index: when access/embargo.aclj of an earlier
// version holds rules, or when either directory holds no day file with lines while a capture is
// tombstoned.
func (p *pass) access(rules *accessRules) (*accessRules, error) {
	if rules != nil {
		return rules, nil
	}
	a := &accessRules{ix: p.ix, days: map[string]*dayChange{}, log: p.r.opt.Logger}
	fi, err := os.Stat(layout.EmbargoACL(p.r.dir))
	switch {
	case err == nil && fi.Size() > 0:
		a.legacy = true
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	rebuild := a.legacy
	for _, d := range []struct{ dir, prefix, ext string }{
		{layout.AccessDir, public.AccessPrefix, public.ACLExt},
		{layout.EmbargoedDir, public.EmbargoedPrefix, public.CDXJExt},
	} {
		if rebuild {
			break
		}
		days, err := public.DayFiles(os.DirFS(layout.Public(p.r.dir)), d.dir, d.prefix, d.ext)
		if err != nil {
			return nil, err
		}
		if len(days) == 0 {
			err := p.ix.Tombstoned(func(store.Entry) error { return errFound })
			if rebuild = errors.Is(err, errFound); !rebuild && err != nil {
				return nil, fmt.Errorf("access rules: %w", err)
			}
		}
	}
	a.rebuild, a.changed = rebuild, rebuild
	return a, nil
}

// fromIndex calls fn for each release day with a tombstoned capture in the index, in order, with
// that day's captures as day changes (what its files hold, written from nothing); only day's, when
// not "". The index yields captures in release order, so one day is held at a time.
func fromIndex(ix *store.Index, day string, fn func(day string, c *dayChange) error) error {
	cur, days := "", map[string]*dayChange{}
	flush := func() error {
		if cur == "" {
			return nil
		}
		err := fn(cur, days[cur])
		days = map[string]*dayChange{}
		return err
	}
	err := ix.Due(farFuture, func(e store.Entry) error {
		if e.State != store.Tombstoned {
			return nil
		}
		d := public.ReleaseDay(e.ReleaseAt)
		if day != "" && d != day {
			return nil
		}
		if d != cur {
			if err := flush(); err != nil {
				return err
			}
			cur = d
		}
		return addTo(days, e, e.Public)
	})
	if err != nil {
		return fmt.Errorf("access rules: %w", err)
	}
	return flush()
}

// sweepDays removes the empty day files of public/access/ and public/embargoed/ (a commit leaves a
// day empty when it releases the day's last capture) and an empty access/embargo.aclj, and
// returns the days left, by directory. An empty file and no file mean the same to pywb, so the
// removals need no commit; write makes them, once a pass, only when it is about to commit (a pass
// that publishes nothing changes nothing but state.json, and a second pass at the same now
// nothing at all).
func sweepDays(dataDir string) (map[string][]string, error) {
	left := map[string][]string{}
	for _, d := range []struct{ dir, prefix, ext string }{
		{layout.AccessDir, public.AccessPrefix, public.ACLExt},
		{layout.EmbargoedDir, public.EmbargoedPrefix, public.CDXJExt},
	} {
		full := filepath.Join(layout.Public(dataDir), d.dir)
		ents, err := os.ReadDir(full)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, ent := range ents {
			day, ok := public.DayOf(ent.Name(), d.prefix, d.ext)
			legacy := d.dir == layout.AccessDir && ent.Name() == layout.EmbargoACLFile
			if !ok && !legacy {
				continue
			}
			fi, err := ent.Info()
			if err != nil {
				return nil, err
			}
			if fi.Size() == 0 {
				if err := os.Remove(filepath.Join(full, ent.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, err
				}
				continue
			}
			if ok {
				left[d.dir] = append(left[d.dir], day)
			}
		}
	}
	return left, nil
}

// addTo notes in days a capture that is now under embargo with its tombstone at loc.
func addTo(days map[string]*dayChange, e store.Entry, loc store.Location) error {
	line, err := cdxjLine(e, public.StateTombstone, loc)
	if err != nil {
		return err
	}
	day := public.ReleaseDay(e.ReleaseAt)
	d := days[day]
	if d == nil {
		d = newDayChange()
		days[day] = d
	}
	k := embargoKey(e)
	c := d.rules[k]
	c.Captures++
	if c.URL == "" || e.URL < c.URL {
		c.URL = e.URL
	}
	d.rules[k] = c
	d.add[e.ID] = line
	delete(d.remove, e.ID)
	return nil
}

// remove notes a tombstoned capture that is released: its line leaves its day, and its key's rule
// there goes with the day's last capture of that key.
func (a *accessRules) remove(e store.Entry) {
	day := public.ReleaseDay(e.ReleaseAt)
	d := a.days[day]
	if d == nil {
		d = newDayChange()
		a.days[day] = d
	}
	k := embargoKey(e)
	c := d.rules[k]
	c.Captures--
	d.rules[k] = c
	if d.add[e.ID] != nil {
		delete(d.add, e.ID)
	} else {
		d.remove[e.ID] = true
	}
	a.changed = true
}

// note updates the rules for the marks of one commit, given the entries as they were before it;
// an error (a line that cannot be written, which writeTombstone wrote already) is write's.
func (a *accessRules) note(batch []store.Entry, marks []store.Mark) {
	for i, m := range marks {
		switch e := batch[i]; {
		case m.State == store.Tombstoned && e.State == store.Sealed:
			if err := addTo(a.days, e, m.Public); err != nil && a.err == nil {
				a.err = err
			}
			a.changed = true
		case m.State == store.Released && e.State == store.Tombstoned:
			a.remove(e)
		}
	}
}

// write renders the files of the days that changed into release-tmp/ (unsynced: commit syncs
// every file it renames) and returns the renames the commit must make: each day's file with
// this commit's changes merged in, or, when the set was rebuilt, every day written anew and every
// other day file emptied, with an empty access/embargo.aclj over that of an earlier version.
func (a *accessRules) write(dataDir string) ([]journalFile, error) {
	if a.err != nil {
		return nil, fmt.Errorf("access rules: %w", a.err)
	}
	if !a.changed {
		return nil, nil
	}
	var old map[string][]string
	if !a.swept || a.rebuild {
		var err error
		if old, err = sweepDays(dataDir); err != nil {
			return nil, err
		}
		a.swept = true
	}
	var files []journalFile
	written := map[string]bool{}
	writeDay := func(day string, c *dayChange) error {
		jf, err := a.writeDay(dataDir, day, c)
		written[day] = true
		files = append(files, jf...)
		return err
	}
	if a.rebuild { // every day of the index, this commit's changes applied, one day at a time
		if err := fromIndex(a.ix, "", func(day string, base *dayChange) error {
			if c := a.days[day]; c != nil {
				base = applyTo(base, c)
			}
			return writeDay(day, base)
		}); err != nil {
			return nil, err
		}
	}
	days := slices.Collect(maps.Keys(a.days))
	if a.rebuild {
		days = append(append(days, old[layout.AccessDir]...), old[layout.EmbargoedDir]...)
	}
	slices.Sort(days)
	for _, day := range slices.Compact(days) {
		if written[day] {
			continue
		}
		c := a.days[day]
		if c == nil || a.rebuild { // rebuilt: a day the index has no capture of, c applied to nothing
			c = applyTo(nil, orEmpty(c))
		}
		if err := writeDay(day, c); err != nil {
			return nil, err
		}
	}
	if a.legacy {
		if err := writeFile(filepath.Join(layout.ReleaseTmp(dataDir), layout.EmbargoACLFile), nil); err != nil {
			return nil, err
		}
		files = append(files, journalFile{Tmp: layout.ReleaseTmpDir + "/" + layout.EmbargoACLFile, Public: layout.AccessDir + "/" + layout.EmbargoACLFile})
	}
	a.days, a.rebuild, a.legacy, a.changed = map[string]*dayChange{}, false, false, false
	return files, nil
}

// writeDay writes the two files of one day, c merged into what public/ holds (into nothing when
// the set is rebuilt). A day file that does not read is rebuilt from the index (as it was before
// this commit's marks) with c applied, and said so.
func (a *accessRules) writeDay(dataDir, day string, c *dayChange) ([]journalFile, error) {
	base := !a.rebuild
	err := a.mergeDay(dataDir, day, c, base)
	if err != nil && base && !errors.Is(err, syscall.ENOSPC) {
		a.log.Warn("rebuilding a damaged day of the access rules from the index", "day", day, "err", err)
		base := newDayChange()
		if ierr := fromIndex(a.ix, day, func(_ string, d *dayChange) error { base = d; return nil }); ierr != nil {
			return nil, ierr
		}
		err = a.mergeDay(dataDir, day, applyTo(base, c), false)
	}
	if err != nil {
		return nil, err
	}
	return []journalFile{
		{Tmp: layout.ReleaseTmpDir + "/" + public.AccessDayName(day), Public: layout.AccessDir + "/" + public.AccessDayName(day)},
		{Tmp: layout.ReleaseTmpDir + "/" + public.EmbargoedDayName(day), Public: layout.EmbargoedDir + "/" + public.EmbargoedDayName(day)},
	}, nil
}

// orEmpty is c, or no change.
func orEmpty(c *dayChange) *dayChange {
	if c == nil {
		return newDayChange()
	}
	return c
}

// applyTo is base (nil: nothing) with c's changes applied.
func applyTo(base, c *dayChange) *dayChange {
	if base == nil {
		base = newDayChange()
	}
	for k, rc := range c.rules {
		b := base.rules[k]
		b.Captures += rc.Captures
		if rc.URL != "" && (b.URL == "" || rc.URL < b.URL) {
			b.URL = rc.URL
		}
		base.rules[k] = b
	}
	for id := range c.remove {
		delete(base.add, id)
	}
	maps.Copy(base.add, c.add)
	return base
}

// mergeDay writes the day's two files into release-tmp/: c merged into the public ones when
// base, else c alone.
func (a *accessRules) mergeDay(dataDir, day string, c *dayChange, base bool) error {
	for _, f := range []struct {
		name, dir string
		merge     func(io.Reader, io.Writer) error
	}{
		{public.AccessDayName(day), layout.AccessDir, func(r io.Reader, w io.Writer) error { return public.MergeEmbargoACL(r, w, c.rules) }},
		{public.EmbargoedDayName(day), layout.EmbargoedDir, func(r io.Reader, w io.Writer) error {
			return public.MergeEmbargoed(r, w, c.add, c.remove)
		}},
	} {
		from := filepath.Join(layout.Public(dataDir), f.dir, f.name)
		if err := mergeInto(from, filepath.Join(layout.ReleaseTmp(dataDir), f.name), base, f.merge); err != nil {
			return err
		}
	}
	return nil
}

// mergeInto writes tmp (unsynced) with merge, reading from when base and it exists, else nothing.
func mergeInto(from, tmp string, base bool, merge func(io.Reader, io.Writer) error) error {
	var in io.Reader = bytes.NewReader(nil)
	if base {
		f, err := os.Open(from)
		switch {
		case err == nil:
			defer f.Close()
			in = f
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	out, err := createPublic(tmp)
	if err != nil {
		return err
	}
	if err := merge(in, out); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", from, err)
	}
	return out.Close()
}

// commitAccess writes the day files in a commit of their own when a pass made no other commit
// and they must be rebuilt (an archive of an earlier version): the commit changes nothing else,
// so state.json keeps its generation. It takes and returns the public side as the last commit
// left it (pub).
func (p *pass) commitAccess(pub published) (published, error) {
	a, err := p.access(pub.rules)
	if err != nil {
		return pub, err
	}
	pub.rules = a
	if !a.changed {
		return pub, nil
	}
	files, err := a.write(p.r.dir)
	if err != nil {
		return pub, err
	}
	j := &journal{Pass: p.now, Files: files, LogSize: pub.logSize, State: pub.state}
	_, err = journalAndApply(p.r.dir, p.ix, j, nil)
	return pub, err
}
