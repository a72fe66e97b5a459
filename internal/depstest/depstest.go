// Package depstest lists what a package links, for the tests that keep the package graph as
// docs/architecture.md draws it (a reader of the public side links no store).
package depstest

import (
	"os/exec"
	"strings"
	"testing"
)

// Deps returns the packages that the package in the test's directory, self, links (go list
// -deps), self last.
func Deps(t testing.TB, self string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the package's dependencies: %v", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != self {
		t.Fatalf("go list -deps gave %q, not the dependencies of %s", deps, self)
	}
	return deps
}

// LinksStore reports whether pkg is the store or what the store links (bbolt, gowarc).
func LinksStore(pkg string) bool {
	under := func(root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }
	return pkg == "github.com/archivectl/archivectl/store" || under("go.etcd.io/bbolt") || under("github.com/nlnwa/gowarc")
}
