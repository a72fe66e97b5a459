package release

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// Restore raises the index's release states to what public/ shows, for an index.db rebuilt from
// the sealed WARC files without its predecessor (the WARCs cannot say what was published): a
// capture with a released CDXJ line becomes released at that location, one with only a tombstone
// line becomes tombstoned. States are never lowered. It returns how many captures it marked.
func Restore(ctx context.Context, dataDir string, timeout time.Duration) (int, error) {
	fsys := os.DirFS(layout.Public(dataDir))
	names, err := public.CDXJFiles(fsys)
	if err != nil {
		return 0, err
	}
	marked := map[string]store.Mark{}
	for _, name := range names {
		state := store.Released
		if strings.HasPrefix(name, layout.TombstonesDir+"/") {
			state = store.Tombstoned
		}
		if err := public.ReadCDXJ(fsys, name, func(l public.Line) error {
			if state >= marked[l.ID].State {
				marked[l.ID] = store.Mark{ID: l.ID, State: state, Public: store.Location{File: public.PathOf(l.Filename), Offset: l.Offset, Length: l.Length}}
			}
			return nil
		}); err != nil {
			return 0, err
		}
	}
	ix, err := store.OpenIndex(layout.Index(dataDir), timeout)
	if err != nil {
		return 0, err
	}
	ids := make([]string, 0, len(marked))
	for id := range marked {
		ids = append(ids, id)
	}
	entries, err := ix.GetMany(ids)
	if err != nil {
		return 0, err
	}
	var marks []store.Mark
	for id, m := range marked {
		if e, ok := entries[id]; ok && e.State < m.State {
			marks = append(marks, m)
		}
	}
	for i := 0; i < len(marks); i += 1000 {
		if err := ctx.Err(); err != nil {
			return i, err
		}
		if err := ix.Mark(marks[i:min(i+1000, len(marks))]); err != nil {
			return i, fmt.Errorf("restore release states: %w", err)
		}
	}
	return len(marks), nil
}
