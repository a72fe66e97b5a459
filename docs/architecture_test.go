package docs_test

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/archivectl/archivectl"

// modulePackages returns every package of the module (bench tools aside) with the packages it
// links, this module's and others' (go list -deps), by path relative to the module root.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages: %v", err)
	}
	out, err := exec.Command(gobin, "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		rel := relative(f[0])
		if rel == "bench" || strings.HasPrefix(rel, "bench/") {
			continue
		}
		pkgs[rel] = f[1:]
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// relative is pkg's path inside the module, or pkg itself when it is another module's.
func relative(pkg string) string {
	if pkg == module {
		return "."
	}
	if rest, ok := strings.CutPrefix(pkg, module+"/"); ok {
		return rest
	}
	return pkg
}

// under reports whether pkg is root or beneath it.
func under(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }

// TestPackageTable: the package table of architecture.md names every package of the module
// once, and nothing else.
func TestPackageTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "## Packages")
	end := strings.Index(doc, "### The rules the tree states")
	if start < 0 || end < start {
		t.Fatal("architecture.md has no package table before its rules")
	}
	row := regexp.MustCompile("(?m)^\\| (`[^|]+`) \\|")
	name := regexp.MustCompile("`([^`]+)`")
	listed := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(doc[start:end], -1) {
		for _, n := range name.FindAllStringSubmatch(m[1], -1) {
			listed[n[1]]++
		}
	}
	pkgs := modulePackages(t)
	for p := range pkgs {
		if listed[p] != 1 {
			t.Errorf("package %s is listed %d times in architecture.md's package table, want once", p, listed[p])
		}
	}
	for p := range listed {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("architecture.md's package table lists %s, which is no package of the module", p)
		}
	}
}

// TestLinkRules checks the rules of architecture.md#imports against what each package links.
func TestLinkRules(t *testing.T) {
	t.Parallel()
	pkgs := modulePackages(t)
	sealedSide := func(d string) bool {
		return under(d, "store") || under(d, "release") || under(d, "crawler") ||
			under(d, "go.etcd.io/bbolt") || under(d, "github.com/nlnwa/gowarc")
	}
	own := func(d string) bool { return relative(d) != d } // a package of this module
	rules := []struct {
		name    string
		applies func(pkg string) bool
		forbids func(pkg, dep string) bool
	}{
		{"the public side links nothing of the sealed side",
			func(p string) bool {
				return under(p, "public") || under(p, "lookup") || under(p, "export") || under(p, "objectstore")
			},
			func(_, d string) bool { return sealedSide(relative(d)) }},
		{"public is the standard library, internal/layout and internal/warcfields",
			func(p string) bool { return p == "public" },
			func(_, d string) bool {
				first, _, _ := strings.Cut(d, "/")
				return strings.Contains(first, ".") && !slices.Contains([]string{"internal/layout", "internal/warcfields"}, relative(d))
			}},
		{"crawler/robots decides without network code, on embargo and aipref only",
			func(p string) bool { return p == "crawler/robots" },
			func(_, d string) bool {
				r := relative(d)
				return d == "net" || under(d, "net/http") || d == "crypto/tls" || own(d) && r != "embargo" && r != "aipref"
			}},
		{"the pure leaves import nothing of this module",
			func(p string) bool { return p == "embargo" || p == "aipref" || p == "crawler/extract" },
			func(_, d string) bool { return own(d) }},
		{"internal packages import only internal packages of this module",
			func(p string) bool { return under(p, "internal") },
			func(_, d string) bool { return own(d) && !under(relative(d), "internal") }},
		{"release never imports crawler",
			func(p string) bool { return under(p, "release") },
			func(_, d string) bool { return under(relative(d), "crawler") }},
		{"store imports neither crawler, release nor the public side",
			func(p string) bool { return under(p, "store") },
			func(_, d string) bool {
				r := relative(d)
				return under(r, "crawler") || under(r, "release") || under(r, "public") || under(r, "lookup") || under(r, "export") || under(r, "objectstore")
			}},
		{"store/index links neither store, WARC nor gzip",
			func(p string) bool { return p == "store/index" },
			func(_, d string) bool {
				return relative(d) == "store" || under(d, "github.com/nlnwa/gowarc") || under(d, "github.com/klauspost/compress") || d == "compress/gzip"
			}},
		{"nothing imports cmd",
			func(p string) bool { return !under(p, "cmd") },
			func(_, d string) bool { return under(relative(d), "cmd") }},
	}
	for _, r := range rules {
		applied := 0
		for p, deps := range pkgs {
			if !r.applies(p) {
				continue
			}
			applied++
			for _, d := range deps {
				if r.forbids(p, d) {
					t.Errorf("%s: %s links %s", r.name, p, relative(d))
				}
			}
		}
		if applied == 0 {
			t.Errorf("%s: no package it applies to", r.name)
		}
	}
}
