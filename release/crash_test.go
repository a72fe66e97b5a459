package release

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
)

// The child process of TestKillDuringPass: it runs one pass over RELEASE_CHILD_DIR at
// RELEASE_CHILD_NOW and kills itself with SIGKILL at RELEASE_CHILD_KILL_AT, "NAME:N": the Nth time
// crash point NAME fires. With none it prints the crash points that fired and how often
// ("fired NAME=N ..."), and a line "same-state A B" for each crash point B that fired at the
// state of the crash point A before it (the data directory unchanged between them).
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("RELEASE_CHILD_DIR")
	if dir == "" {
		t.Skip("the child process of TestKillDuringPass")
	}
	now, err := time.Parse(time.RFC3339, os.Getenv("RELEASE_CHILD_NOW"))
	if err != nil {
		t.Fatal(err)
	}
	killAt := os.Getenv("RELEASE_CHILD_KILL_AT")
	maxBatch, _ = strconv.Atoi(os.Getenv("RELEASE_CHILD_BATCH"))
	var mu sync.Mutex // the copier fires its crash point on a goroutine of its own
	fired := map[string]int{}
	// The state each goroutine's last crash point left: the copier's ("copied") and the pass's.
	last := map[bool]struct{ step, state string }{}
	crashHook = func(step string) {
		mu.Lock()
		defer mu.Unlock()
		fired[step]++
		if killAt == "" {
			st, copier := dirState(dir), step == "copied"
			if prev, ok := last[copier]; ok && prev.state == st {
				fmt.Printf("same-state %s %s\n", prev.step, step)
			}
			last[copier] = struct{ step, state string }{step, st}
			return
		}
		if fmt.Sprintf("%s:%d", step, fired[step]) == killAt {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way; the other crash points wait for the lock
		}
	}
	r := New(dir, Options{ShardSize: 6 << 10, Logger: testkit.QuietLogger()})
	if _, err := r.Pass(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	var counts []string
	for _, name := range slices.Sorted(maps.Keys(fired)) {
		counts = append(counts, fmt.Sprintf("%s=%d", name, fired[name]))
	}
	fmt.Printf("fired %s\n", strings.Join(counts, " "))
}

// dirState is what the data directory dir holds, but its sealed files (a pass never writes
// them): every file's name and a digest of its bytes. The pass's goroutine may go on while the
// copier's crash point reads it: a file it renames meanwhile is left out.
func dirState(dir string) string {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "sealed":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %x\n", p, sha256.Sum256(b))
		return nil
	})
	if err != nil {
		panic(err) // on the copier's goroutine, where t.Fatal cannot stop the test
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// crashPointNames are the names of every crash point of the package, from its source: the
// literal of each crashPoint call. The source is found beside this file, so that a test binary
// run from elsewhere (test/campaign.sh) reads it too.
func crashPointNames(t *testing.T) []string {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no source path for crash_test.go")
	}
	files, err := filepath.Glob(filepath.Join(filepath.Dir(self), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`crashPoint\(("[^"]*"|[^)]*)\)`)
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllSubmatch(b, -1) {
			name, err := strconv.Unquote(string(m[1]))
			if err != nil {
				if string(m[1]) == "step string" { // the declaration
					continue
				}
				t.Fatalf("%s: crashPoint(%s): a crash point is named by a literal, for this test to find it", filepath.Base(f), m[1])
			}
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// runChild runs TestCrashChild in a child process; timeKill > 0 kills it from outside after that long.
func runChild(t *testing.T, dir string, now time.Time, killAt string, timeKill time.Duration) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RELEASE_CHILD_DIR="+dir, "RELEASE_CHILD_NOW="+now.Format(time.RFC3339),
		"RELEASE_CHILD_KILL_AT="+killAt, "RELEASE_CHILD_BATCH=7")
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

// TestKillDuringPass kills a child process in the middle of release passes over many trials: at
// every crash point of the package once (at a random one of the times it fires), at random crash
// points, and after random delays. The next pass must leave every due capture in public/ exactly
// once, every other one with exactly one tombstone, and Verify clean. Undisturbed, the passes must
// fire every crash point, and no crash point at the state the one before it left.
// ARCHIVECTL_CAMPAIGN=full (test/campaign.sh crash) kills five times at each and runs 50 of each
// random kind.
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

	// The crash points the pass at nows[k] fires after the passes at nows[:k], and how often, from
	// an undisturbed child.
	names := crashPointNames(t)
	firedAt := map[int]map[string]int{}
	total := map[string]int{}
	for k, now := range nows {
		dir := tempDir()
		testkit.CopyTree(t, template.dir, dir)
		r := New(dir, Options{ShardSize: 6 << 10, Logger: testkit.QuietLogger()})
		for _, earlier := range nows[:k] {
			mustPass(t, r, earlier)
		}
		out, err := runChild(t, dir, now, "", 0)
		if err != nil {
			t.Fatalf("undisturbed child: %v\n%s", err, out)
		}
		firedAt[k] = map[string]int{}
		for _, line := range strings.Split(out, "\n") {
			switch f := strings.Fields(line); {
			case len(f) > 0 && f[0] == "fired":
				for _, kv := range f[1:] {
					name, n, _ := strings.Cut(kv, "=")
					firedAt[k][name], _ = strconv.Atoi(n)
					total[name] += firedAt[k][name]
				}
			case len(f) == 3 && f[0] == "same-state":
				t.Errorf("pass at %s: crash point %q fires at the state crash point %q left: fold them into one", now.Format(time.RFC3339), f[2], f[1])
			}
		}
	}
	for _, name := range names {
		if total[name] == 0 {
			t.Errorf("crash point %q never fires in the test's passes", name)
		}
	}
	for name := range total {
		if !slices.Contains(names, name) {
			t.Errorf("crash point %q fired, but no crashPoint(%q) is in the source", name, name)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// The trials: a crash point ("NAME:N") or a delay after which the child is killed, each in a
	// pass at nows[k] after the passes at nows[:k].
	type trial struct {
		k      int
		killAt string
		delay  time.Duration
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	each, random := 1, 12
	if os.Getenv("ARCHIVECTL_CAMPAIGN") == "full" {
		each, random = 5, 50
	}
	var trials []trial
	for _, name := range names {
		var ks []int
		for k := range nows {
			if firedAt[k][name] > 0 {
				ks = append(ks, k)
			}
		}
		for range each {
			k := ks[rng.IntN(len(ks))]
			trials = append(trials, trial{k: k, killAt: fmt.Sprintf("%s:%d", name, 1+rng.IntN(firedAt[k][name]))})
		}
	}
	for range random {
		k := rng.IntN(len(nows))
		var steps []string // every crash point the pass fires, each time it does
		for _, name := range names {
			for n := range firedAt[k][name] {
				steps = append(steps, fmt.Sprintf("%s:%d", name, n+1))
			}
		}
		trials = append(trials, trial{k: k, killAt: steps[rng.IntN(len(steps))]})
		trials = append(trials, trial{k: rng.IntN(len(nows)), delay: time.Duration(rng.IntN(60)) * time.Millisecond})
	}

	killed, killedAt := 0, map[string]int{}
	for i, tr := range trials {
		dir := tempDir()
		testkit.CopyTree(t, template.dir, dir)
		r := New(dir, Options{ShardSize: 6 << 10, Logger: testkit.QuietLogger()})
		// Start from an earlier state, then interrupt the pass at a later now.
		for _, now := range nows[:tr.k] {
			mustPass(t, r, now)
		}
		now := nows[tr.k]
		out, err := runChild(t, dir, now, tr.killAt, tr.delay)
		switch {
		case err != nil:
			killed++
			if tr.killAt != "" {
				name, _, _ := strings.Cut(tr.killAt, ":")
				killedAt[name]++
			}
		case tr.killAt != "":
			t.Fatalf("trial %d: the child was to be killed at crash point %s, but finished:\n%s", i, tr.killAt, out)
		case !strings.Contains(out, "fired"):
			t.Fatalf("trial %d: child neither finished nor was killed:\n%s", i, out)
		}
		where := fmt.Sprintf("trial %d (now %s, killed at %s)", i, now.Format(time.RFC3339), cmp.Or(tr.killAt, tr.delay.String()))
		mustPass(t, r, now)
		released, embargoed := publicLines(t, dir)
		for _, e := range template.entries {
			if !e.ReleaseAt.After(now) {
				if released[e.ID] != 1 {
					t.Errorf("%s: capture %s released %d times", where, e.ID, released[e.ID])
				}
			} else if released[e.ID] != 0 || embargoed[e.ID] != 1 {
				t.Errorf("%s: embargoed capture %s has %d released lines and %d tombstones", where, e.ID, released[e.ID], embargoed[e.ID])
			}
		}
		mustVerify(t, dir)
		if left, _ := os.ReadDir(filepath.Join(dir, "release-tmp")); len(left) != 0 {
			t.Errorf("%s: %d temp files left", where, len(left))
		}
	}
	for _, name := range names {
		if killedAt[name] == 0 {
			t.Errorf("no trial killed the pass at crash point %q", name)
		}
	}
	if killed < len(trials)/2 {
		t.Errorf("only %d of %d children were killed mid-pass", killed, len(trials))
	}
	var at []string
	for _, name := range names {
		at = append(at, fmt.Sprintf("%s=%d", name, killedAt[name]))
	}
	t.Logf("kill campaign: %d of %d children killed mid-pass; at each crash point: %s", killed, len(trials), strings.Join(at, " "))
}
