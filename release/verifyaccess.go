package release

import (
	"errors"
	"io/fs"
	"os"
	"slices"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// checkAccess checks public/access/embargo.aclj against the index: one rule per URL key with a
// tombstoned capture, counting them, and nothing else. A missing file is no problem: archives of
// earlier versions have none until their next pass writes it.
func (v *verifier) checkAccess(ix *store.Index) error {
	const name = layout.AccessDir + "/" + layout.EmbargoACLFile
	b, err := os.ReadFile(layout.EmbargoACL(v.dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	rules, err := public.ParseEmbargoACL(b)
	if err != nil {
		v.problem("%s: %v", name, err)
		return nil
	}
	want := map[string]int{}
	if err := ix.Due(farFuture, func(e store.Entry) error {
		if e.State == store.Tombstoned {
			want[embargoKey(e)]++
		}
		return nil
	}); err != nil {
		return err
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
	return nil
}
