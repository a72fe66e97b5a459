package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/public"
)

// replayEngines returns the directory of the replay engines test/replay installs: from
// ARCHIVECTL_REPLAY_NODE_DIR (CI sets it), or else by running install.sh. Without node the test
// is skipped, saying so, except under CI=true, where it fails: CI must replay.
func replayEngines(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("ARCHIVECTL_REPLAY_NODE_DIR"); dir != "" {
		return dir
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node is not installed, and CI must replay the export in wabac: install Node.js 20 or later (%v)", err)
		}
		t.Skipf("SKIPPED: node is not installed, so the WACZ export cannot be replayed in wabac (install Node.js 20 or later, or set ARCHIVECTL_REPLAY_NODE_DIR): %v", err)
	}
	cmd := exec.Command("bash", filepath.Join("..", "..", "test", "replay", "install.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("test/replay/install.sh: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// replayResult is one line of test/replay/replay.mjs.
type replayResult struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Length   int    `json:"length"`
	SHA256   string `json:"sha256"`
	Archived bool   `json:"archived"`
	TS       string `json:"ts"`
	Verify   *struct {
		Checks []struct {
			ID      string `json:"id"`
			Matched bool   `json:"matched"`
		} `json:"checks"`
		Invalid int `json:"invalid"`
	} `json:"verify"`
}

// replayWACZ replays every capture of list ("TIMESTAMP URL" lines) out of a WACZ in wabac.
func replayWACZ(t *testing.T, engines, wacz string, list []string) (results []replayResult, verify replayResult) {
	t.Helper()
	listFile := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(listFile, []byte(strings.Join(list, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("..", "..", "test", "replay", "replay.mjs"), "--verify", wacz, listFile)
	cmd.Env = append(os.Environ(), "ARCHIVECTL_REPLAY_NODE_DIR="+engines)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("replay.mjs: %v\n%s", err, stderr.String())
	}
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var r replayResult
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("replay.mjs line %q: %v", line, err)
		}
		if r.Verify != nil {
			verify = r
		} else {
			results = append(results, r)
		}
	}
	if len(results) != len(list) || verify.Verify == nil {
		t.Fatalf("replay.mjs answered %d of %d requests (verify line %v)\n%s", len(results), len(list), verify.Verify != nil, stderr.String())
	}
	if verify.Verify.Invalid != 0 || !slices.ContainsFunc(verify.Verify.Checks, func(c struct {
		ID      string `json:"id"`
		Matched bool   `json:"matched"`
	}) bool {
		return strings.HasSuffix(c.ID, "pages/pages.jsonl") && c.Matched
	}) {
		t.Errorf("wabac's hash checks: %+v, want pages.jsonl checked and nothing invalid", verify.Verify)
	}
	return results, verify
}

// testExportReplay replays every released URL of the demo out of its WACZ export in wabac, the
// engine of ReplayWeb.page, and compares each body with the released response's payload as
// gowarc reads it from the public shards; then does the same with a usage-gated export, in which
// what was left out must not replay.
func testExportReplay(t *testing.T, exe, data string, released map[string]public.Line) {
	engines := replayEngines(t)
	payloads := shardPayloads(t, data)
	var lines []public.Line
	for _, l := range released {
		lines = append(lines, l)
	}
	slices.SortFunc(lines, func(a, b public.Line) int { return strings.Compare(a.URL, b.URL) })
	list := make([]string, len(lines))
	for i, l := range lines {
		list[i] = l.Timestamp + " " + l.URL
	}
	for _, tc := range []struct {
		name string
		args []string
		kept func(l public.Line) bool
	}{
		{"everything", nil, func(public.Line) bool { return true }},
		{"--exclude-usage train-ai=n", []string{"--exclude-usage", "train-ai=n"},
			func(l public.Line) bool { return !slices.Contains(l.Usage, "train-ai=n") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wacz := filepath.Join(t.TempDir(), "demo.wacz")
			mustRun(t, exe, append([]string{"export", "--data", data, "--wacz", wacz}, tc.args...)...)
			readPackage(t, wacz)
			results, _ := replayWACZ(t, engines, wacz, list)
			replayed, left := 0, 0
			for i, r := range results {
				l := lines[i]
				if !tc.kept(l) {
					left++
					if r.Archived {
						t.Errorf("%s: left out of the package, but wabac replays it (status %d)", l.URL, r.Status)
					}
					continue
				}
				p, ok := payloads[l.ID]
				switch {
				case !ok:
					t.Errorf("%s: gowarc finds no response record %s in the public shards", l.URL, l.ID)
				case !r.Archived || r.Status != l.Status || r.TS != l.Timestamp:
					t.Errorf("%s: wabac answers status %d, archived %v, capture %s; want %d from the archive at %s", l.URL, r.Status, r.Archived, r.TS, l.Status, l.Timestamp)
				case r.SHA256 != p.sha256 || r.Length != p.length:
					t.Errorf("%s: wabac serves %d bytes sha256 %s; the released payload is %d bytes sha256 %s", l.URL, r.Length, r.SHA256, p.length, p.sha256)
				default:
					replayed++
				}
			}
			if replayed+left != len(lines) || (tc.args != nil && left == 0) {
				t.Errorf("%d of %d released URLs replayed byte for byte, %d left out", replayed, len(lines), left)
			}
			t.Logf("%d of %d released URLs replayed byte for byte from %s, %d left out", replayed, len(lines), filepath.Base(wacz), left)
		})
	}
}
