package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var built struct {
	once sync.Once
	path string
	err  error
}

// Archivectl returns the path of the archivectl binary for tests that run the real command:
// ARCHIVECTL_BIN when set (test/campaign.sh builds it once), else one built now with `go build`
// into a temporary directory, once per test process.
func Archivectl(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("ARCHIVECTL_BIN"); p != "" {
		return p
	}
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "archivectl-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "archivectl")
		gobin, err := exec.LookPath("go")
		if err != nil {
			gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		out, err := exec.Command(gobin, "build", "-o", built.path, "github.com/archivectl/archivectl/cmd/archivectl").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("%w: %s", err, out)
		}
	})
	if built.err != nil {
		t.Fatalf("build archivectl: %v", built.err)
	}
	return built.path
}
