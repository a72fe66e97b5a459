package release

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// checkAccess checks pywb's view of what is under embargo against the index: in
// public/access/embargo-DAY.aclj one rule per URL key with a tombstoned capture releasing that
// day, counting them, and in public/embargoed/embargoed-DAY.cdxj the tombstone line of each such
// capture, at its tombstone, and nothing else. An archive of an earlier version has
// access/embargo.aclj instead (one rule per key, counting all its tombstoned captures), checked
// so until a pass writes the days; none at all is no problem either (a pass writes them).
func (v *verifier) checkAccess(ix *store.Index) error {
	type dayKey struct{ day, key string }
	rules, legacy := map[dayKey]int{}, map[string]int{}
	lines := map[string]map[string]store.Entry{} // day → capture id → entry
	if err := ix.Due(farFuture, func(e store.Entry) error {
		if e.State == store.Tombstoned {
			day := public.ReleaseDay(e.ReleaseAt)
			rules[dayKey{day, embargoKey(e)}]++
			legacy[embargoKey(e)]++
			if lines[day] == nil {
				lines[day] = map[string]store.Entry{}
			}
			lines[day][e.ID] = e
		}
		return nil
	}); err != nil {
		return err
	}
	aclDays, err := public.DayFiles(os.DirFS(layout.Public(v.dir)), layout.AccessDir, public.AccessPrefix, public.ACLExt)
	if err != nil {
		return err
	}
	cdxjDays, err := public.DayFiles(os.DirFS(layout.Public(v.dir)), layout.EmbargoedDir, public.EmbargoedPrefix, public.CDXJExt)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(layout.EmbargoACL(v.dir))
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && len(old) == 0:
	case err != nil:
		return err
	case len(aclDays) > 0 || len(cdxjDays) > 0:
		v.problem("%s/%s holds rules beside the rules by release day: pywb reads both; run archivectl release, which empties it", layout.AccessDir, layout.EmbargoACLFile)
	default:
		v.checkLegacyACL(old, legacy)
		return nil
	}
	if len(aclDays) == 0 && len(cdxjDays) == 0 {
		return nil
	}
	var wrong []string
	for _, day := range aclDays {
		name := layout.AccessDir + "/" + public.AccessDayName(day)
		b, err := os.ReadFile(filepath.Join(layout.Public(v.dir), filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		rs, err := public.ParseEmbargoACL(b)
		if err != nil {
			v.problem("%s: %v", name, err)
			continue
		}
		for _, r := range rs {
			k := dayKey{day, r.Key}
			if uk, err := surt.Key(r.URL); err != nil || uk != r.Key || rules[k] != r.Captures {
				wrong = append(wrong, name+" "+r.Key)
			}
			delete(rules, k)
		}
	}
	for k := range rules {
		wrong = append(wrong, layout.AccessDir+"/"+public.AccessDayName(k.day)+" "+k.key)
	}
	if len(wrong) > 0 {
		slices.Sort(wrong)
		v.problem("access rules: %d rules (first %s) do not count the tombstoned captures of their URL key releasing that day in index.db, or name a URL of another key: run archivectl release to write them again after deleting public/%s/",
			len(wrong), wrong[0], layout.AccessDir)
	}
	wrong = wrong[:0]
	for _, day := range cdxjDays {
		name := layout.EmbargoedDir + "/" + public.EmbargoedDayName(day)
		want := lines[day]
		delete(lines, day)
		if err := v.checkEmbargoedDay(name, want, &wrong); err != nil {
			return err
		}
		for id := range want {
			wrong = append(wrong, name+" "+id)
		}
	}
	for day, want := range lines {
		for id := range want {
			wrong = append(wrong, layout.EmbargoedDir+"/"+public.EmbargoedDayName(day)+" "+id)
		}
	}
	if len(wrong) > 0 {
		slices.Sort(wrong)
		v.problem("%s/: %d tombstone lines (first %s) are missing, extra, or not at their capture's tombstone in index.db: run archivectl release to write them again after deleting public/%s/",
			layout.EmbargoedDir, len(wrong), wrong[0], layout.EmbargoedDir)
	}
	return nil
}

// checkEmbargoedDay checks one day's tombstone lines: sorted, each a tombstone line of a capture
// of want (which it takes out) at that capture's tombstone.
func (v *verifier) checkEmbargoedDay(name string, want map[string]store.Entry, wrong *[]string) error {
	full := filepath.Join(layout.Public(v.dir), filepath.FromSlash(name))
	b, err := os.ReadFile(full)
	if err != nil {
		return err
	}
	if err := public.MergeEmbargoed(bytes.NewReader(b), io.Discard, nil, nil); err != nil {
		v.problem("%s: %v", name, err)
		return nil
	}
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		l, err := public.ParseLine(line)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err) // MergeEmbargoed parsed it
		}
		e, ok := want[l.ID]
		if !ok || l.State != public.StateTombstone || l.Filename != path.Base(e.Public.File) || l.Offset != e.Public.Offset || l.Length != e.Public.Length {
			*wrong = append(*wrong, name+" "+l.ID)
		}
		delete(want, l.ID)
	}
	return nil
}

// checkLegacyACL checks access/embargo.aclj of an earlier version: one rule per URL key with a
// tombstoned capture, counting them, and nothing else.
func (v *verifier) checkLegacyACL(b []byte, want map[string]int) {
	const name = layout.AccessDir + "/" + layout.EmbargoACLFile
	rules, err := public.ParseEmbargoACL(b)
	if err != nil {
		v.problem("%s: %v", name, err)
		return
	}
	var wrong []string
	for _, r := range rules {
		if k, err := surt.Key(r.URL); err != nil || k != r.Key || want[r.Key] != r.Captures {
			wrong = append(wrong, r.Key)
		}
		delete(want, r.Key)
	}
	for k := range want {
		wrong = append(wrong, k)
	}
	if len(wrong) > 0 {
		slices.Sort(wrong)
		v.problem("%s: the rules of %d URL keys (first %s) do not count their tombstoned captures in index.db, or name a URL of another key: run archivectl release to write it again after deleting it",
			name, len(wrong), wrong[0])
	}
}
