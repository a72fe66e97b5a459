// Command gen builds a benchmark archive: N small captures sealed through store.Seal (real WARC
// records: request, response or revisit, metadata; Options.BulkLoad, so batches are not synced
// one by one, only the whole archive at the end) over a simulated year of crawling, with the
// release states a history of daily passes would have left, set through the index API: every
// capture due by the end of that year is released, every other one tombstoned. Of public/ only
// pywb's view of what is under embargo (access/, embargoed/) is written (the states' public locations name files that do not exist), so
// archivectl verify is not meant for it. It writes DIR/bench.json: the end of the year
// (last_pass) and the instant (now) at which exactly -due tombstoned captures are due.
//
//	go run ./bench/release/gen -n 1000000 -out /tmp/archive-1M
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// start is the first instant of the simulated crawl, which lasts a year.
var start = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

const year = 365 * 24 * time.Hour

// Summary is bench.json.
type Summary struct {
	Captures     int       `json:"captures"`
	ResumedAt    int       `json:"resumed_at,omitempty"` // captures sealed by an interrupted build; the times cover the rest
	Revisits     int       `json:"revisits"`
	Released     int       `json:"released"`
	Tombstoned   int       `json:"tombstoned"`
	LastPass     time.Time `json:"last_pass"`
	Now          time.Time `json:"now"` // exactly Due tombstoned captures have ReleaseAt in (LastPass, Now]
	Due          int       `json:"due"`
	IndexBytes   int64     `json:"index_bytes"`
	SealedBytes  int64     `json:"sealed_bytes"`
	BuildSeconds float64   `json:"build_seconds"`
	CPUSeconds   float64   `json:"cpu_seconds"` // user + system time of the build
}

func main() {
	n := flag.Int("n", 1_000_000, "captures to seal")
	out := flag.String("out", "", "data directory to create (must not exist)")
	batch := flag.Int("batch", 25000, "captures per Seal call")
	due := flag.Int("due", 1000, "tombstoned captures due at bench.json's now")
	seed := flag.Uint64("seed", 1, "random seed")
	every := flag.Duration("every", 24*time.Hour, "time between two simulated release passes")
	resume := flag.Bool("resume", false, "continue a build that was interrupted (same -n, -seed and -every)")
	flag.Parse()
	if *out == "" || *n < *due || *batch < 1 || *every <= 0 {
		log.Fatal("usage: gen -n N -out DIR [-batch B] [-due D] [-seed S] [-every D] [-resume]")
	}
	if _, err := os.Stat(*out); err == nil && !*resume {
		log.Fatalf("%s exists; remove it first, or continue it with -resume", *out)
	}
	if _, err := os.Stat(filepath.Join(*out, "bench.json")); err == nil {
		log.Fatalf("%s is complete", *out)
	}
	if p := os.Getenv("GEN_CPUPROFILE"); p != "" {
		f, _ := os.Create(p)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	debug.SetGCPercent(400) // a batch's garbage is short-lived; fewer collections leave more CPU to Seal
	debug.SetMemoryLimit(4 << 30)
	sum, err := build(*out, *n, *batch, *due, *seed, *every)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := json.MarshalIndent(sum, "", "  ")
	if err := os.WriteFile(filepath.Join(*out, "bench.json"), append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", b)
}

func build(dir string, n, batchSize, due int, seed uint64, every time.Duration) (Summary, error) {
	began, cpu0 := time.Now(), cpuTime()
	g := newGenerator(n, seed)
	clock := start
	s, err := store.Open(dir, store.Options{Now: func() time.Time { return clock },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Software: "archivectl-bench-gen", BulkLoad: true})
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Captures: n, LastPass: start.Add(year), Due: due}
	ix := s.Index()
	nextPass := start.Add(every)
	c, err := ix.Counts(start)
	if err != nil {
		return sum, err
	}
	done := c.Sealed + c.Tombstoned + c.Released
	if done > 0 {
		// An interrupted build: make its captures again without sealing them, catch its passes up.
		sum.ResumedAt = done
		for range done {
			clock = g.next().Time
		}
		last := start
		for !nextPass.After(clock) {
			last, nextPass = nextPass, nextPass.Add(every)
		}
		if err := pass(ix, last); err != nil {
			return sum, err
		}
	}
	batches := make(chan []store.Capture, 2)
	go func() {
		defer close(batches)
		for i := done; i < n; i += batchSize {
			batches <- g.batch(min(batchSize, n-i))
		}
	}()
	for caps := range batches {
		clock = caps[len(caps)-1].Time
		es, err := s.Seal(context.Background(), caps)
		if err != nil {
			return sum, err
		}
		for _, e := range es {
			if e.Revisit {
				sum.Revisits++
			}
		}
		dropSealedCache(dir)
		for ; !nextPass.After(clock); nextPass = nextPass.Add(every) {
			if err := pass(ix, nextPass); err != nil {
				return sum, err
			}
		}
		done += len(es)
		if stopAfter > 0 && done >= stopAfter {
			s.Close()
			return sum, errStopped
		}
		if done%(10*batchSize) < batchSize || done == n {
			fmt.Fprintf(os.Stderr, "%d of %d captures sealed, %s\n", done, n, time.Since(began).Round(time.Second))
		}
	}
	for ; nextPass.Before(sum.LastPass); nextPass = nextPass.Add(every) {
		if err := pass(ix, nextPass); err != nil {
			return sum, err
		}
	}
	if err := pass(ix, sum.LastPass); err != nil {
		return sum, err
	}
	if err := s.Close(); err != nil {
		return sum, err
	}
	if c, err = ix.Counts(sum.LastPass); err != nil {
		return sum, err
	}
	sum.Released, sum.Tombstoned = c.Released, c.Tombstoned
	if sum.ResumedAt > 0 {
		sum.Revisits = 0
		if err := ix.Each(func(e store.Entry) error {
			if e.Revisit {
				sum.Revisits++
			}
			return nil
		}); err != nil {
			return sum, err
		}
	}
	if sum.Now, sum.Due, err = dueAfter(ix, due); err != nil {
		return sum, err
	}
	if err := writeDays(dir, ix); err != nil {
		return sum, err
	}
	sum.BuildSeconds = time.Since(began).Seconds()
	sum.CPUSeconds = (cpuTime() - cpu0).Seconds()
	if st, err := os.Stat(layout.Index(dir)); err == nil {
		sum.IndexBytes = st.Size()
	}
	files, _ := filepath.Glob(filepath.Join(layout.Sealed(dir), "*"))
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			sum.SealedBytes += st.Size()
		}
	}
	return sum, nil
}

// stopAfter, when set (by tests), interrupts a build once it has sealed that many captures.
var stopAfter int

var errStopped = errors.New("stopped")

// passBatch is how many captures one simulated commit marks, as a release pass's commits do.
const passBatch = 10000

// pass does to the index what a release pass at now does: every due capture becomes released and
// every capture still sealed gets a tombstone, in commits of at most passBatch marks. The public
// locations it records are made up: no public file is written.
func pass(ix *store.Index, now time.Time) error {
	for _, step := range []struct {
		scan  func(time.Time, func(store.Entry) error) error
		state store.CaptureState
		file  string
	}{
		{ix.Due, store.Released, "shards/PUBLIC-gen.warc.gz"},
		{ix.Embargoed, store.Tombstoned, "tombstones/TOMBSTONES-gen.warc.gz"},
	} {
		var marks []store.Mark
		if err := step.scan(now, func(e store.Entry) error {
			marks = append(marks, store.Mark{ID: e.ID, State: step.state, ReleaseAt: e.ReleaseAt,
				Public: store.Location{File: step.file, Offset: e.Response.Offset, Length: e.Response.Length}})
			return nil
		}); err != nil {
			return err
		}
		for i := 0; i < len(marks); i += passBatch {
			if err := ix.Mark(marks[i:min(i+passBatch, len(marks))]); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeDays writes pywb's view of what is under embargo as the passes would have left it (the
// only public files gen writes; a pass rebuilds missing days from every tombstoned capture in the
// index, which a measured pass should not do): per release day, public/access/embargo-DAY.aclj
// with one rule for each URL key with tombstoned captures releasing that day, and
// public/embargoed/embargoed-DAY.cdxj with their tombstone lines. The index is scanned in release
// order, so one day is held at a time.
func writeDays(dir string, ix *store.Index) error {
	for _, d := range []string{layout.Access(dir), layout.Embargoed(dir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	day := ""
	rules := map[string]*public.EmbargoRule{}
	var lines [][]byte
	flush := func() error {
		if day == "" {
			return nil
		}
		list := make([]public.EmbargoRule, 0, len(rules))
		for _, r := range rules {
			list = append(list, *r)
		}
		b, err := public.FormatEmbargoACL(list)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(layout.Access(dir), public.AccessDayName(day)), b, 0o644); err != nil {
			return err
		}
		slices.SortFunc(lines, bytes.Compare)
		if err := os.WriteFile(filepath.Join(layout.Embargoed(dir), public.EmbargoedDayName(day)), bytes.Join(lines, nil), 0o644); err != nil {
			return err
		}
		rules, lines = map[string]*public.EmbargoRule{}, nil
		return nil
	}
	if err := ix.Due(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), func(e store.Entry) error {
		if e.State != store.Tombstoned {
			return nil
		}
		if d := public.ReleaseDay(e.ReleaseAt); d != day {
			if err := flush(); err != nil {
				return err
			}
			day = d
		}
		k, err := surt.Key(e.URL)
		if err != nil {
			k = e.SURT
		}
		r := rules[k]
		if r == nil {
			r = &public.EmbargoRule{Key: k, URL: e.URL}
			rules[k] = r
		}
		r.Captures++
		r.URL = min(r.URL, e.URL)
		line, err := public.FormatLine(k, e.Time, public.CDXJ{URL: e.URL, Mime: e.Mime, Status: e.Status, Digest: e.PayloadDigest,
			Length: e.Public.Length, Offset: e.Public.Offset, Filename: path.Base(e.Public.File), ReleaseAt: e.ReleaseAt.UTC().Format(time.RFC3339Nano),
			ID: e.ID, State: public.StateTombstone, Time: e.Time.UTC().Format(time.RFC3339Nano), Headers: e.Headers, Revisit: e.Revisit, RefersTo: e.RefersTo})
		if err != nil {
			return err
		}
		lines = append(lines, line)
		return nil
	}); err != nil {
		return err
	}
	return flush()
}

// errEnough stops a scan.
var errEnough = errors.New("enough")

// dueAfter is the instant at which the first due captures not yet released become due, and how
// many are due then (more than due only when release times tie).
func dueAfter(ix *store.Index, due int) (time.Time, int, error) {
	var times []time.Time
	err := ix.Due(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), func(e store.Entry) error {
		if len(times) >= due && e.ReleaseAt.After(times[len(times)-1]) {
			return errEnough
		}
		times = append(times, e.ReleaseAt)
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return time.Time{}, 0, err
	}
	if len(times) < due {
		return time.Time{}, 0, fmt.Errorf("only %d captures are tombstoned; ask for fewer due", len(times))
	}
	return times[len(times)-1], len(times), nil
}

// dropSealedCache asks the kernel to forget the sealed files' pages once they are written back: a
// 10,000,000-capture build writes more than the page cache holds, and index.db's pages, read again
// by every batch, should be the ones that stay. Errors are ignored: it is only advice.
func dropSealedCache(dir string) {
	files, _ := filepath.Glob(filepath.Join(layout.Sealed(dir), "*"))
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		const fadvDontNeed = 4
		syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0)
		f.Close()
	}
}

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
