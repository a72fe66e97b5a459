package pubindex

import (
	"testing"

	"github.com/archivectl/archivectl/internal/depstest"
)

// TestLinksNoStore: the lookup links this package, so it must link neither the store nor what
// the store links (bbolt, gowarc): only the public format, the data directory's names, durable
// file writes, and the Snappy and xxhash packages.
func TestLinksNoStore(t *testing.T) {
	t.Parallel()
	for _, d := range depstest.Deps(t, "github.com/archivectl/archivectl/release/pubindex") {
		if depstest.LinksStore(d) {
			t.Errorf("links %s", d)
		}
	}
}
