package export

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReadsPublicOnly: an export reads the public side only, so it links neither the store (the
// sealed repository and its index) nor what the store links (bbolt, gowarc).
func TestReadsPublicOnly(t *testing.T) {
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
	const self = "github.com/archivectl/archivectl/release/export"
	if len(deps) == 0 || deps[len(deps)-1] != self {
		t.Fatalf("go list -deps gave %q, not this package's dependencies", deps)
	}
	for _, d := range deps {
		under := func(root string) bool { return d == root || strings.HasPrefix(d, root+"/") }
		if d == "github.com/archivectl/archivectl/store" || d == "github.com/archivectl/archivectl/release" ||
			under("go.etcd.io/bbolt") || under("github.com/nlnwa/gowarc") {
			t.Errorf("links %s", d)
		}
	}
}
