package public

import (
	"strings"
	"testing"

	"github.com/archivectl/archivectl/internal/depstest"
)

// TestStandardLibraryOnly: the public format links nothing but the standard library,
// store/layout (the data directory's names) and store/warcfields (the named-field blocks), both
// standard library only themselves, so that whoever reads public/ (the lookup, the CLI) pays for
// nothing else.
func TestStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	const self = "github.com/archivectl/archivectl/release/public"
	for _, d := range depstest.Deps(t, self) {
		if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") && d != self &&
			d != "github.com/archivectl/archivectl/store/layout" && d != "github.com/archivectl/archivectl/store/warcfields" {
			t.Errorf("links %s, which is not in the standard library", d)
		}
	}
}
