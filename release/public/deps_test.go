package public

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly: the public format links nothing but the standard library and
// store/layout (the data directory's names, itself standard library only), so that whoever
// reads public/ (the lookup, the CLI) pays for nothing else.
func TestStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the package's dependencies: %v", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	const self = "github.com/archivectl/archivectl/release/public"
	if len(deps) == 0 || deps[len(deps)-1] != self {
		t.Fatalf("go list -deps gave %q, not this package's dependencies", deps)
	}
	for _, d := range deps[:len(deps)-1] {
		if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") && d != "github.com/archivectl/archivectl/store/layout" {
			t.Errorf("links %s, which is not in the standard library", d)
		}
	}
}
