package lookup

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPublicServiceLinksNoStore: the lookup reads the public side only, so it must link neither the
// store nor what the store links (bbolt, gowarc); surt keys come from store/surt.
func TestPublicServiceLinksNoStore(t *testing.T) {
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the lookup's dependencies: %v", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != "github.com/archivectl/archivectl/release/lookup" {
		t.Fatalf("go list -deps gave %q, not the lookup's dependencies", deps)
	}
	for _, d := range deps {
		if forbiddenDep(d) {
			t.Errorf("the lookup links %s", d)
		}
	}
}

// forbiddenDep reports whether a package may not be linked into the lookup.
func forbiddenDep(pkg string) bool {
	under := func(root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }
	return pkg == "github.com/archivectl/archivectl/store" || under("go.etcd.io/bbolt") || under("github.com/nlnwa/gowarc")
}

func TestForbiddenDep(t *testing.T) {
	t.Parallel()
	for pkg, want := range map[string]bool{
		"github.com/archivectl/archivectl/store":          true,
		"github.com/archivectl/archivectl/store/surt":     false,
		"github.com/archivectl/archivectl/release/public": false,
		"go.etcd.io/bbolt":                                true,
		"go.etcd.io/bbolt/internal/common":                true,
		"go.etcd.io/bboltx":                               false,
		"github.com/nlnwa/gowarc":                         true,
		"github.com/nlnwa/gowarc/v3":                      true,
		"github.com/nlnwa/gowarc/v3/internal/timestamp":   true,
		"github.com/nlnwa/whatwg-url":                     false,
	} {
		if got := forbiddenDep(pkg); got != want {
			t.Errorf("forbiddenDep(%q) = %v, want %v", pkg, got, want)
		}
	}
}
