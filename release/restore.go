package release

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/layout"
)

// Restore raises the index's release states to what public/ shows, for an index.db rebuilt from
// the sealed WARC files without its predecessor (the WARCs cannot say what was published): a
// capture with a released CDXJ line becomes released at that location, one with only a tombstone
// line becomes tombstoned. States are never lowered. It returns how many captures it marked.
func Restore(ctx context.Context, dataDir string, timeout time.Duration) (int, error) {
	public := map[string]store.Mark{}
	for _, sub := range []struct {
		dir   string
		state store.CaptureState
	}{{layout.TombstonesDir, store.Tombstoned}, {layout.ShardsDir, store.Released}} {
		names, err := filepath.Glob(filepath.Join(layout.Public(dataDir), sub.dir, "*.cdxj"))
		if err != nil {
			return 0, err
		}
		for _, name := range names {
			if err := eachLine(name, func(l Line) {
				if sub.state >= public[l.ID].State {
					public[l.ID] = store.Mark{ID: l.ID, State: sub.state, Public: store.Location{File: l.Filename, Offset: l.Offset, Length: l.Length}}
				}
			}); err != nil {
				return 0, err
			}
		}
	}
	ix, err := store.OpenIndex(layout.Index(dataDir), timeout)
	if err != nil {
		return 0, err
	}
	ids := make([]string, 0, len(public))
	for id := range public {
		ids = append(ids, id)
	}
	entries, err := ix.GetMany(ids)
	if err != nil {
		return 0, err
	}
	var marks []store.Mark
	for id, m := range public {
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

// eachLine calls fn for every line of a CDXJ file.
func eachLine(name string, fn func(Line)) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		l, err := ParseLine(sc.Bytes())
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		fn(l)
	}
	return sc.Err()
}
