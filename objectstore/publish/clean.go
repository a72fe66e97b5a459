package publish

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// clean deletes, once a generation is committed, the node's manifests older than the last Keep
// and every object of the node that no kept manifest lists: what failed Publish calls left,
// index segments merged away, superseded per-generation copies. gens are the node's committed
// generations, ascending. Manifests go first, so no kept manifest ever lists a deleted object.
func (p *publisher) clean(ctx context.Context, gens []int64) error {
	if len(gens) == 0 {
		return nil
	}
	keep := gens[max(len(gens)-Keep, 0):]
	for _, g := range gens[:len(gens)-len(keep)] {
		if err := p.s.Delete(ctx, ManifestName(p.node, g)); err != nil {
			return err
		}
		p.res.Deleted++
	}
	live := map[string]bool{}
	for _, g := range keep {
		m, err := ReadManifest(ctx, p.s, p.node, g)
		if err != nil {
			return fmt.Errorf("read kept manifest: %w", err)
		}
		for _, f := range slices.Concat(m.Files, m.Log) {
			live[f.Object] = true
		}
	}
	objs, err := p.s.List(ctx, p.prefix)
	if err != nil {
		return err
	}
	for _, o := range objs {
		obj := strings.TrimPrefix(o.Name, p.prefix)
		if live[obj] {
			continue
		}
		if err := p.s.Delete(ctx, o.Name); err != nil {
			return err
		}
		p.res.Deleted++
	}
	return nil
}
