// Package pywb checks the README's pywb setup with pywb's own index and access-control code: see
// check.py. It runs when ARCHIVECTL_PYWB_SRC names a pywb source tree (github.com/webrecorder/pywb,
// a clone: nothing is installed from it) and python3 (with the modules pywb's code needs: jinja2,
// six, werkzeug, requests, dateutil; Debian packages them as python3-jinja2 and so on) and node
// are there; it skips otherwise, saying why. Neither PyPI nor GitHub is reachable from this
// machine or from CI, so CI skips it: run it by hand where a pywb tree is at hand,
//
//	ARCHIVECTL_PYWB_SRC=/path/to/pywb go test ./test/pywb -run TestREADMESetup -count=1 -v
//
// and it logs each pass's figures (the README's "The pywb setup, checked with pywb's own code"
// records the last run's, with the pywb commit).
package pywb

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/cmd/archivectl/demoweb"
	"github.com/archivectl/archivectl/internal/testkit"
)

// TestREADMESetup crawls the demo web and, after each of the demo's release passes, exports the
// released index and has check.py read the data directory as the README's pywb collection does:
// every capture listed once, every URL under embargo blocked with 451 and its release date on
// the page, nothing else blocked.
func TestREADMESetup(t *testing.T) {
	src := os.Getenv("ARCHIVECTL_PYWB_SRC")
	if src == "" {
		t.Skip("ARCHIVECTL_PYWB_SRC does not name a pywb source tree")
	}
	for _, tool := range []string{"python3", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	if err := exec.Command("python3", "-c", "import jinja2, six, werkzeug, requests, dateutil").Run(); err != nil {
		t.Skipf("python3 lacks a module pywb's code needs: %v", err)
	}
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..")
	dir := t.TempDir()
	exe := testkit.Archivectl(t)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("archivectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	now := time.Now().UTC().Truncate(time.Second).Add(10 * time.Minute)
	site, err := demoweb.StartWith(demoweb.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	if err := os.WriteFile(filepath.Join(dir, "seeds.txt"), []byte(strings.Join(site.Seeds(), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("crawl", "--data", "data", "--delay", "0s", "seeds.txt")
	for _, days := range []int{0, 8, 32, 91} {
		at := now.Add(time.Duration(days) * 24 * time.Hour).Format(time.RFC3339)
		run("release", "--data", "data", "--now", at)
		run("export", "--data", "data", "--cdx", "released.cdxj")
		cmd := exec.Command("python3", filepath.Join(filepath.Dir(here), "check.py"), src, filepath.Join(dir, "data"),
			filepath.Join(dir, "released.cdxj"), filepath.Join(root, "configs", "pywb", "templates"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("day %d: check.py: %v\n%s", days, err, out)
		}
		t.Logf("day %d: %s", days, strings.TrimSpace(string(out)))
	}
}
