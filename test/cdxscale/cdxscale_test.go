package cdxscale

import (
	"bufio"
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/bench/lookup/synth"
	"github.com/archivectl/archivectl/internal/testkit"
)

// Sizes and goals of TestCDXAndMementoAtScale.
const (
	defaultCaptures = 100_000          // CI; ARCHIVECTL_CDX_N=1000000 for the million
	checkedProbes   = 3000             // answers compared with the reference
	hostsChecked    = 150              // hosts whose CDXJ lines the reference holds (of 5,000)
	loadRate        = 1000             // requests a second
	loadFor         = 10 * time.Second // a round
	loadRounds      = 3                // the median round's p99 is the figure: the machine is shared
	loadConns       = 64
	goalP99         = 10 * time.Millisecond
	// grossP99 is what the default run (CI, sharing its cores with the other packages' tests)
	// requires: an answer that cost O(archive) instead of O(result) saturates the server at this
	// rate and misses it by far, a busy machine does not. The goal is required by the figures run.
	grossP99 = 2 * time.Second
)

// TestCDXAndMementoAtScale runs `archivectl serve` (the real binary) over a generated public side
// of mixed captures (statuses, media types, revisits, tombstones) and asks it random CDX queries
// (exact URLs, prefixes, hosts, domains, from/to, limits, reverse, closest, filters, text and
// JSON) and Memento requests (TimeGates with and without Accept-Datetime, link-format and JSON
// TimeMaps): each answer equals, field by field, what a plain reading of the public CDXJ files
// says. Then it paces a mix of those requests at 1,000 a second for 10 s, an open loop on a
// fixed schedule, three rounds, and requires p99 < 10 ms from each request's scheduled time in
// the median round when it is a figures run (ARCHIVECTL_CDX_N or ARCHIVECTL_FIGURES=1 set, on a
// quiet machine); the default run logs the p99 and requires only grossP99.
// 100,000 captures by default; ARCHIVECTL_CDX_N=1000000 runs the million (about a minute more).
// ARCHIVECTL_SEED=N repeats a run's queries.
func TestCDXAndMementoAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds archivectl and serves a generated public side")
	}
	n := defaultCaptures
	if v := os.Getenv("ARCHIVECTL_CDX_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			t.Fatalf("ARCHIVECTL_CDX_N=%q: want a number of captures, at least 1000", v)
		}
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("ARCHIVECTL_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("ARCHIVECTL_SEED=%q: %v", v, err)
		}
	}
	t.Logf("seed %d (ARCHIVECTL_SEED=%d repeats this run)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 25))

	dir := t.TempDir()
	start := time.Now()
	res, err := synth.Write(context.Background(), dir, synth.Options{N: n, Mixed: true})
	if err != nil {
		t.Fatal(err)
	}
	syscall.Sync() // the generated files on disk now, not written back while the load runs
	t.Logf("generated and synced in %s: %s", time.Since(start).Round(time.Millisecond), res.Describe())
	base, pid := startServe(t, testkit.Archivectl(t), dir)

	urls := readLines(t, filepath.Join(dir, "urls.txt"))
	hosts := map[string]bool{}
	for range hostsChecked {
		k, err := surtOf(urls[rng.IntN(len(urls))])
		if err != nil {
			t.Fatal(err)
		}
		hosts[hostOf(k)] = true
	}
	start = time.Now()
	ref, err := loadReference(filepath.Join(dir, "public"), hosts)
	if err != nil {
		t.Fatal(err)
	}
	var onHosts []string
	for _, u := range urls {
		if k, _ := surtOf(u); hosts[hostOf(k)] {
			onHosts = append(onHosts, u)
		}
	}
	t.Logf("reference: %d released captures of %d hosts (%d URLs) from %d CDXJ lines, read in %s",
		len(ref.caps), len(hosts), len(onHosts), ref.lines, time.Since(start).Round(time.Millisecond))

	g := &prober{rng: rng, urls: onHosts, ref: ref}
	probes := make([]probe, checkedProbes)
	client := newClient(loadConns)
	kinds := map[string]int{}
	failures := 0
	for i := range probes {
		p := g.next()
		probes[i] = p
		kinds[p.kind]++
		if err := ref.check(client, base, p); err != nil {
			t.Errorf("%s: %v", p, err)
			if failures++; failures == 10 {
				t.Fatal("10 answers differ from the CDXJ; stopping")
			}
		}
	}
	t.Logf("%d answers equal to the CDXJ's (%d CDX lines): %v", len(probes), ref.rows, kinds)
	if t.Failed() {
		return
	}

	paced(client, base, probes, ref.status, loadRate, time.Second, loadConns) // warm-up
	// The load generator shares the machine with the server: its own garbage (the generation's,
	// above all) is collected before, and none during, so that its pauses are not counted as the
	// server's latency. It allocates some tens of MB a round.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var p99s []time.Duration
	for round := range loadRounds {
		runtime.GC()
		load, _ := os.ReadFile("/proc/loadavg")
		cpu0, err := testkit.ProcessCPU(pid)
		if err != nil {
			t.Fatal(err)
		}
		l := paced(client, base, probes, ref.status, loadRate, loadFor, loadConns)
		cpu, err := testkit.ProcessCPU(pid)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d captures, round %d: %s; the server's CPU: %.0f µs an answer (load average %s)", n, round+1, l,
			float64((cpu-cpu0).Microseconds())/float64(l.sent), strings.Join(strings.Fields(string(load))[:3], " "))
		if l.failed > 0 {
			t.Errorf("%d of %d requests failed under load; the first: %s", l.failed, l.sent, l.firstFailure)
		}
		p99s = append(p99s, l.p99)
	}
	slices.Sort(p99s)
	want := grossP99
	if os.Getenv("ARCHIVECTL_CDX_N") != "" || os.Getenv("ARCHIVECTL_FIGURES") == "1" {
		want = goalP99
	}
	p99 := p99s[len(p99s)/2]
	t.Logf("p99 %s at %d req/s (the median of %d rounds: %v); the goal is < %s", ms(p99), loadRate, loadRounds, p99s, goalP99)
	if p99 >= want {
		t.Errorf("p99 %s at %d req/s (the median of %d rounds: %v), want < %s", ms(p99), loadRate, loadRounds, p99s, want)
	}
}

// startServe starts `archivectl serve --data dir` on a free loopback port and returns its base
// URL and process id once it listens; the process is stopped (SIGTERM) when the test ends.
func startServe(t *testing.T, bin, dir string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--data", dir, "--listen", "127.0.0.1:0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "archivectl serve: "); ok {
				addr <- strings.TrimSuffix(a, "/")
			}
		}
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	select {
	case a := <-addr:
		return a, cmd.Process.Pid
	case err := <-done:
		t.Fatalf("archivectl serve ended before it listened: %v\n%s", err, stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("archivectl serve did not listen within 2 minutes\n%s", stderr.String())
	}
	return "", 0
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}
