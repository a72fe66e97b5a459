package lookup

import (
	"testing"

	"github.com/archivectl/archivectl/internal/depstest"
)

// TestPublicServiceLinksNoStore: the lookup reads the public side only, so it must link neither the
// store nor what the store links (bbolt, gowarc); surt keys come from store/surt.
func TestPublicServiceLinksNoStore(t *testing.T) {
	t.Parallel()
	for _, d := range depstest.Deps(t, "github.com/archivectl/archivectl/release/lookup") {
		if depstest.LinksStore(d) {
			t.Errorf("the lookup links %s", d)
		}
	}
}
