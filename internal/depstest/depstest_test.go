package depstest

import "testing"

func TestLinksStore(t *testing.T) {
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
		if got := LinksStore(pkg); got != want {
			t.Errorf("LinksStore(%q) = %v, want %v", pkg, got, want)
		}
	}
}

func TestDeps(t *testing.T) {
	t.Parallel()
	deps := Deps(t, "github.com/archivectl/archivectl/internal/depstest")
	for _, d := range deps {
		if LinksStore(d) {
			t.Errorf("links %s", d)
		}
	}
}
