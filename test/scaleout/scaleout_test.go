// Package scaleout runs test/scaleout/run.sh, the scale-out test (three crawl nodes, one
// SeaweedFS bucket, two lookup nodes), as part of go test ./... and so of CI.
package scaleout

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/test/seaweedfs"
)

func TestScaleOut(t *testing.T) {
	if testing.Short() {
		t.Skip("the scale-out test takes about two minutes")
	}
	weed := seaweedfs.Require(t)
	if _, err := exec.LookPath("node"); err != nil && os.Getenv("ARCHIVECTL_REPLAY_NODE_DIR") == "" {
		msg := "node is not installed, and the scale-out test replays the bucket's public side with warcio.js: install Node.js 20 or later"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cmd := exec.Command("bash", "run.sh")
	cmd.Env = append(os.Environ(), "ARCHIVECTL_WEED="+weed)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "run.sh: scale-out test passed") {
		t.Fatalf("run.sh: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
