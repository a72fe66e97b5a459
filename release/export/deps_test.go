package export

import (
	"testing"

	"github.com/archivectl/archivectl/internal/depstest"
)

// TestReadsPublicOnly: an export reads the public side only, so it links neither the store (the
// sealed repository and its index) nor what the store links (bbolt, gowarc), nor the releaser.
func TestReadsPublicOnly(t *testing.T) {
	t.Parallel()
	for _, d := range depstest.Deps(t, "github.com/archivectl/archivectl/release/export") {
		if depstest.LinksStore(d) || d == "github.com/archivectl/archivectl/release" {
			t.Errorf("links %s", d)
		}
	}
}
