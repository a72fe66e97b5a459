package pubindex

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoStore: the lookup links this package, so it must link neither the store nor what
// the store links (bbolt, gowarc): only the public format, the data directory's names, durable
// file writes, and the Snappy and xxhash packages.
func TestLinksNoStore(t *testing.T) {
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
	if len(deps) == 0 || deps[len(deps)-1] != "github.com/archivectl/archivectl/release/pubindex" {
		t.Fatalf("go list -deps gave %q, not this package's dependencies", deps)
	}
	for _, d := range deps {
		if d == "github.com/archivectl/archivectl/store" || strings.HasPrefix(d, "go.etcd.io/bbolt") || strings.HasPrefix(d, "github.com/nlnwa/gowarc") {
			t.Errorf("links %s", d)
		}
	}
}
