package release

import (
	"context"
	"fmt"
	"os"
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
	lines, err := public.Captures(os.DirFS(layout.Public(dataDir)))
	if err != nil {
		return 0, err
	}
	marked := make(map[string]store.Mark, len(lines))
	for _, l := range lines {
		state := store.Tombstoned
		if l.State == public.StateReleased {
			state = store.Released
		}
		marked[l.ID] = store.Mark{ID: l.ID, State: state, Public: store.Location{File: public.PathOf(l.Filename), Offset: l.Offset, Length: l.Length}}
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
