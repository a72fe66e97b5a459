package reliability

import (
	"bytes"
	"os/exec"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
)

// archivectl returns the path of the archivectl binary (testkit.Archivectl: ARCHIVECTL_BIN, or
// built once per test process).
func archivectl(t *testing.T) string { return testkit.Archivectl(t) }

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
