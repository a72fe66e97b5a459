package reliability

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// archivectl returns the path of the archivectl binary: ARCHIVECTL_BIN when set (test/campaign.sh
// builds it once), else one built now into a temporary directory, once per test process.
func archivectl(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ARCHIVECTL_BIN"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "archivectl-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "archivectl")
		gobin, err := exec.LookPath("go")
		if err != nil {
			gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		out, err := exec.Command(gobin, "build", "-o", builtBin, "github.com/archivectl/archivectl/cmd/archivectl").CombinedOutput()
		if err != nil {
			buildErr = &buildError{out: string(out), err: err}
		}
	})
	if buildErr != nil {
		t.Fatalf("build archivectl: %v", buildErr)
	}
	return builtBin
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// result is how one run of the binary ended.
type result struct {
	code           int // exit status; -1 when killed by a signal
	stdout, stderr string
	took           time.Duration
}

// run runs archivectl with args to completion (at most a minute).
func run(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(archivectl(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start archivectl: %v", err)
	}
	timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	cmd.Wait()
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
}

// runKilled starts archivectl with args and kills it with SIGKILL after delay (unless it ended
// before); it reports whether the kill came first.
func runKilled(t *testing.T, delay time.Duration, args ...string) (killed bool) {
	t.Helper()
	cmd := exec.Command(archivectl(t), args...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start archivectl: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return false
	case <-time.After(delay):
		cmd.Process.Kill() // SIGKILL
		<-done
		return !cmd.ProcessState.Exited()
	}
}
