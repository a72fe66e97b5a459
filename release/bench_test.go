package release

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/store"
)

// benchCapture is a small capture: the 1M-capture index is about the index, not the bytes.
func benchCapture(i int, p embargo.Period) store.Capture {
	body := fmt.Sprintf("<p>%d</p>", i)
	return store.Capture{URL: fmt.Sprintf("https://example%d.com/page/%d", i%1000, i), Time: t0, IP: "127.0.0.1",
		Request:  []byte(fmt.Sprintf("GET /page/%d HTTP/1.1\r\nHost: example%d.com\r\n\r\n", i, i%1000)),
		Response: []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)),
		Period:   p}
}

// BenchmarkPassInLargeIndex is one release pass that releases the 1,000 captures due in an index of
// ARCHIVECTL_BENCH_CAPTURES captures (default 1,000,000), the others already tombstoned. Building the
// archive takes long (half an hour for 1,000,000 on a busy 2-core machine): with ARCHIVECTL_BENCH_DIR
// set it is built once under DIR/template and copied for each run. Run it through bench/release/run.sh.
func BenchmarkPassInLargeIndex(b *testing.B) {
	total := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("ARCHIVECTL_BENCH_CAPTURES")); err == nil && v > 1000 {
		total = v
	}
	const due = 1000
	root := os.Getenv("ARCHIVECTL_BENCH_DIR")
	if root == "" {
		root = b.TempDir()
	}
	template := filepath.Join(root, fmt.Sprintf("template-%d", total))
	if _, err := os.Stat(filepath.Join(template, "complete")); err != nil {
		os.RemoveAll(template)
		buildLargeArchive(b, template, total, due)
	}
	dir := filepath.Join(root, "work")
	os.RemoveAll(dir)
	if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v\n%s", err, out)
	}
	defer os.RemoveAll(dir)
	ix, err := store.OpenIndex(filepath.Join(dir, "index.db"), 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	now := t0.Add(8 * 24 * time.Hour)
	var scans []string
	for range 3 {
		scanStart := time.Now()
		n := 0
		if err := ix.Due(now, func(store.Entry) error { n++; return nil }); err != nil || n != due {
			b.Fatalf("due %d (%v), want %d", n, err, due)
		}
		scans = append(scans, time.Since(scanStart).Round(time.Microsecond).String())
	}
	r := New(dir, Options{Logger: testkit.QuietLogger()})
	sum, err := r.Pass(context.Background(), now)
	if err != nil || sum.Released != due || sum.Tombstoned != 0 {
		b.Fatalf("pass: %+v, %v", sum, err)
	}
	again, err := r.Pass(context.Background(), now)
	if err != nil || again.Released != 0 {
		b.Fatalf("second pass: %+v, %v", again, err)
	}
	b.Logf("index of %d captures, %d due: due scans %v (first, then warm); release pass %s end to end; a pass with nothing to do %s (goals: scan < 50 ms, pass < 1 s)",
		total, due, scans, sum.Duration.Round(time.Millisecond), again.Duration.Round(time.Millisecond))
	b.ReportMetric(float64(sum.Duration.Microseconds())/1000, "pass-ms")
	for b.Loop() {
		// The measured figures are the single pass above; a pass is not repeatable at one now.
	}
}

// buildLargeArchive seals total small captures into dir, due of them due a week after t0 and the
// rest a quarter after, and marks them all tombstoned, as an earlier pass would have.
func buildLargeArchive(b *testing.B, dir string, total, due int) {
	start := time.Now()
	s, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger(), Now: func() time.Time { return t0 }})
	if err != nil {
		b.Fatal(err)
	}
	ix := s.Index()
	var marks []store.Mark
	for i := 0; i < total; i += 5000 {
		var caps []store.Capture
		for j := i; j < min(i+5000, total); j++ {
			p := embargo.Quarter
			if j%(total/due) == 0 {
				p = embargo.Week
			}
			caps = append(caps, benchCapture(j, p))
		}
		es, err := s.Seal(context.Background(), caps)
		if err != nil {
			b.Fatal(err)
		}
		marks = marks[:0]
		for _, e := range es {
			marks = append(marks, store.Mark{ID: e.ID, State: store.Tombstoned, Public: store.Location{File: "tombstones/bench.warc.gz", Offset: 1, Length: 1}})
		}
		if err := ix.Mark(marks); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("sealed and marked %d captures in %s", total, time.Since(start).Round(time.Second))
}

// BenchmarkReleaseVsCp is a release pass against `cp -r` + `sync` of the same sealed files, in one
// run: ARCHIVECTL_BENCH_MB (default 200) MB of sealed captures, ARCHIVECTL_BENCH_COPY_CAPTURES of them
// (default one per 100 KB), all due, with bodies of random base64 (which gzip barely shrinks). Each
// round (one per b.N: run it with -benchtime 5x or more) restores index.db, removes public/ and the
// copies, warms the page cache with the sealed files, then times cp -r + sync and the pass, in
// alternating order. The ratios are medians over the rounds of cp's time over the pass's time (the
// goal is ratio-vs-cp+sync ≥ 0.5). bench/release/copy.sh runs the 4,000-capture, 66 MB case. With
// ARCHIVECTL_BENCH_PROFILE=PATH, the pass of round N writes its CPU profile to PATH.N (go tool
// pprof merges them).
func BenchmarkReleaseVsCp(b *testing.B) {
	mb := 200
	if v, err := strconv.Atoi(os.Getenv("ARCHIVECTL_BENCH_MB")); err == nil && v > 0 {
		mb = v
	}
	n := mb << 10 / 100
	if v, err := strconv.Atoi(os.Getenv("ARCHIVECTL_BENCH_COPY_CAPTURES")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	sealedSize := sealCopyArchive(b, dir, n, int64(mb)*1e6)
	sealedDir := filepath.Join(dir, "sealed")
	sealed, _ := filepath.Glob(filepath.Join(sealedDir, "*.warc.gz"))
	index := filepath.Join(dir, "index.db")
	orig, err := os.ReadFile(index)
	if err != nil {
		b.Fatal(err)
	}
	cpDir := filepath.Join(b.TempDir(), "copy")
	run := func(name string, args ...string) {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	var passCPU, copyCPU []float64
	copyOnce := func() (cp, cpSync time.Duration) {
		cpu := cpuTime(syscall.RUSAGE_CHILDREN)
		defer func() { copyCPU = append(copyCPU, (cpuTime(syscall.RUSAGE_CHILDREN) - cpu).Seconds()) }()
		start := time.Now()
		run("cp", "-r", sealedDir, cpDir)
		cp = time.Since(start)
		copies, _ := filepath.Glob(filepath.Join(cpDir, "*"))
		run("sync", copies...)
		return cp, time.Since(start)
	}
	r := New(dir, Options{Logger: testkit.QuietLogger()})
	profile := os.Getenv("ARCHIVECTL_BENCH_PROFILE")
	profiled := 0
	passOnce := func() time.Duration {
		cpu := cpuTime(syscall.RUSAGE_SELF)
		if profile != "" {
			f, err := os.Create(fmt.Sprintf("%s.%d", profile, profiled))
			if err == nil {
				err = pprof.StartCPUProfile(f)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
		profiled++
		start := time.Now()
		sum, err := r.Pass(context.Background(), t0)
		if err != nil || sum.Released != n {
			b.Fatalf("pass: %+v, %v", sum, err)
		}
		d := time.Since(start)
		passCPU = append(passCPU, (cpuTime(syscall.RUSAGE_SELF) - cpu).Seconds())
		return d
	}
	var cps, cpSyncs, passes, vsCp, vsCpSync []float64
	round := 0
	for b.Loop() {
		os.RemoveAll(cpDir)
		os.RemoveAll(filepath.Join(dir, "public"))
		if err := os.WriteFile(index, orig, 0o600); err != nil {
			b.Fatal(err)
		}
		run("sync")
		run("cat", append(sealed, index)...) // the page cache holds the sealed files for both contenders
		var cp, cpSync, pass time.Duration
		if round%2 == 0 {
			cp, cpSync = copyOnce()
			pass = passOnce()
		} else {
			pass = passOnce()
			cp, cpSync = copyOnce()
		}
		round++
		cps, cpSyncs, passes = append(cps, cp.Seconds()), append(cpSyncs, cpSync.Seconds()), append(passes, pass.Seconds())
		vsCp, vsCpSync = append(vsCp, cp.Seconds()/pass.Seconds()), append(vsCpSync, cpSync.Seconds()/pass.Seconds())
	}
	mbps := func(s float64) float64 { return float64(sealedSize) / s / 1e6 }
	b.Logf("%d captures, %.1f MB sealed, %d rounds (medians): cp %.0f ms, cp+sync %.0f ms (CPU %.0f ms), release pass %.0f ms (%.0f MB/s, CPU %.0f ms); ratio vs cp+sync %.2f, per round %.2f",
		n, float64(sealedSize)/1e6, round, testkit.Median(cps)*1e3, testkit.Median(cpSyncs)*1e3, testkit.Median(copyCPU)*1e3, testkit.Median(passes)*1e3, mbps(testkit.Median(passes)),
		testkit.Median(passCPU)*1e3, testkit.Median(vsCpSync), vsCpSync)
	b.ReportMetric(mbps(testkit.Median(passes)), "release-MB/s")
	b.ReportMetric(testkit.Median(vsCp), "ratio-vs-cp")
	b.ReportMetric(testkit.Median(vsCpSync), "ratio-vs-cp+sync")
}

// cpuTime is the user and system CPU time of this process (RUSAGE_SELF) or of its waited-for
// children (RUSAGE_CHILDREN).
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(who, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sealCopyArchive seals n due captures of about size/n sealed bytes each into dir and returns the
// sealed files' size.
func sealCopyArchive(b *testing.B, dir string, n int, size int64) int64 {
	s, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger(), Now: func() time.Time { return t0 }, MaxFileSize: 256 << 20})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// Base64 of random bytes gzips to about 1.013 times their size; a capture's request, metadata
	// and headers take about 1,150 bytes more.
	raw := make([]byte, max((size/int64(n)-1150)*987/1000, 1))
	for i := 0; i < n; i += 100 {
		var caps []store.Capture
		for j := i; j < min(i+100, n); j++ {
			for k := range raw {
				raw[k] = byte(rng.Uint32())
			}
			c := benchCapture(j, embargo.None)
			body := base64.StdEncoding.EncodeToString(raw)
			c.Response = []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
			caps = append(caps, c)
		}
		if _, err := s.Seal(context.Background(), caps); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	sealed, _ := filepath.Glob(filepath.Join(dir, "sealed", "*.warc.gz"))
	var total int64
	for _, f := range sealed {
		st, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		total += st.Size()
	}
	return total
}
