package release

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
)

// The child process of TestKillDuringPass: it runs one pass over RELEASE_CHILD_DIR at
// RELEASE_CHILD_NOW and kills itself with SIGKILL at crash step RELEASE_CHILD_KILL_AT
// (0: never; it then prints how many steps the pass had).
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("RELEASE_CHILD_DIR")
	if dir == "" {
		t.Skip("the child process of TestKillDuringPass")
	}
	now, err := time.Parse(time.RFC3339, os.Getenv("RELEASE_CHILD_NOW"))
	if err != nil {
		t.Fatal(err)
	}
	killAt, _ := strconv.Atoi(os.Getenv("RELEASE_CHILD_KILL_AT"))
	maxBatch, _ = strconv.Atoi(os.Getenv("RELEASE_CHILD_BATCH"))
	steps := 0
	crashHook = func(string) {
		steps++
		if steps == killAt {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
	r := New(dir, Options{ShardSize: 6 << 10, Logger: quietLogger()})
	if _, err := r.Pass(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("steps=%d\n", steps)
}

// runChild runs TestCrashChild in a child process; timeKill > 0 kills it from outside after that long.
func runChild(t *testing.T, dir string, now time.Time, killAt int, timeKill time.Duration) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RELEASE_CHILD_DIR="+dir, "RELEASE_CHILD_NOW="+now.Format(time.RFC3339),
		"RELEASE_CHILD_KILL_AT="+strconv.Itoa(killAt), "RELEASE_CHILD_BATCH=7")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if timeKill > 0 {
		timer := time.AfterFunc(timeKill, func() { cmd.Process.Kill() })
		defer timer.Stop()
	}
	err := cmd.Wait()
	return out.String(), err
}

// TestKillDuringPass kills a child process at random points of release passes (at a random
// crash step, or after a random delay) over many trials; the next pass must leave every due
// capture in public/ exactly once, every other one with exactly one tombstone, and Verify clean.
func TestKillDuringPass(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns many processes")
	}
	t.Parallel()
	// A SIGKILL loses no page cache, so memory-backed directories test the same protocol
	// without paying for real fsyncs in every trial.
	tempDir := t.TempDir
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		base, err := os.MkdirTemp("/dev/shm", "release-crash-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(base) })
			n := 0
			tempDir = func() string {
				n++
				d := filepath.Join(base, strconv.Itoa(n))
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				return d
			}
		}
	}
	template := buildArchive(t, tempDir(), 30)
	nows := []time.Time{t0.Add(time.Hour), t0.Add(8 * 24 * time.Hour), t0.Add(32 * 24 * time.Hour), t0.Add(91 * 24 * time.Hour)}

	// How many crash steps the pass at nows[k] has after the passes at nows[:k], from an undisturbed child.
	stepsAt := map[int]int{}
	for k, now := range nows {
		dir := tempDir()
		testkit.CopyTree(t, template.dir, dir)
		r := New(dir, Options{ShardSize: 6 << 10, Logger: quietLogger()})
		for _, earlier := range nows[:k] {
			mustPass(t, r, earlier)
		}
		out, err := runChild(t, dir, now, 0, 0)
		if err != nil {
			t.Fatalf("undisturbed child: %v\n%s", err, out)
		}
		var n int
		if _, err := fmt.Sscanf(out[strings.Index(out, "steps="):], "steps=%d", &n); err != nil {
			t.Fatalf("child output %q: %v", out, err)
		}
		stepsAt[k] = n
	}

	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	const trials = 24
	killed := 0
	for trial := range trials {
		dir := tempDir()
		testkit.CopyTree(t, template.dir, dir)
		r := New(dir, Options{ShardSize: 6 << 10, Logger: quietLogger()})
		// Start from a random earlier state, then interrupt the pass at a later now.
		k := rng.IntN(len(nows))
		for _, now := range nows[:k] {
			mustPass(t, r, now)
		}
		now := nows[k]
		var err error
		var out string
		if trial%2 == 0 {
			at := 1 + rng.IntN(stepsAt[k])
			out, err = runChild(t, dir, now, at, 0)
		} else {
			out, err = runChild(t, dir, now, 0, time.Duration(rng.IntN(60))*time.Millisecond)
		}
		if err != nil {
			killed++
		} else if !strings.Contains(out, "steps=") {
			t.Fatalf("trial %d: child neither finished nor was killed:\n%s", trial, out)
		}
		mustPass(t, r, now)
		released, embargoed := publicLines(t, dir)
		for _, e := range template.entries {
			if !e.ReleaseAt.After(now) {
				if released[e.ID] != 1 {
					t.Errorf("trial %d (now %s): capture %s released %d times", trial, now.Format(time.RFC3339), e.ID, released[e.ID])
				}
			} else if released[e.ID] != 0 || embargoed[e.ID] != 1 {
				t.Errorf("trial %d (now %s): embargoed capture %s has %d released lines and %d tombstones", trial, now.Format(time.RFC3339), e.ID, released[e.ID], embargoed[e.ID])
			}
		}
		mustVerify(t, dir)
		if left, _ := os.ReadDir(filepath.Join(dir, "release-tmp")); len(left) != 0 {
			t.Errorf("trial %d: %d temp files left", trial, len(left))
		}
	}
	if killed < trials/2 {
		t.Errorf("only %d of %d children were killed mid-pass", killed, trials)
	}
	t.Logf("%d of %d children killed mid-pass", killed, trials)
}
