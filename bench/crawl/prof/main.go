// Command prof runs one crawl in process, as `archivectl crawl --delay 0s` does, and writes
// its CPU profile and a heap profile taken when the live heap was largest, for go tool pprof.
//
//	go run ./bench/crawl/prof -data DIR -cpuprofile cpu.pprof -memprofile heap.pprof SEEDS
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/store"
)

func main() {
	data := flag.String("data", "", "data directory (a new one under /tmp by default)")
	cpu := flag.String("cpuprofile", "", "write the crawl's CPU profile here")
	mem := flag.String("memprofile", "", "write a heap profile here, taken at the largest live heap seen")
	rate := flag.Int("memprofilerate", 0, "runtime.MemProfileRate (0: the runtime's default)")
	maxPages := flag.Int("max-pages", 0, "stop after N pages (0: no limit)")
	verbose := flag.Bool("v", false, "log at debug level (every decision and sealed batch)")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: prof [flags] SEEDS")
	}
	if *rate > 0 {
		runtime.MemProfileRate = *rate
	}
	dir := *data
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "crawlprof"); err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	seeds, err := crawler.ReadSeeds(f)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}
	if *cpu != "" {
		out, err := os.Create(*cpu)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(out); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	stopHeap := func() {}
	if *mem != "" {
		stopHeap = watchHeap(*mem)
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	sum, err := crawl(crawler.Config{DataDir: dir, ScopedSeeds: seeds, Concurrency: 16, Retries: 2, MaxPages: *maxPages, Log: logger}, store.Options{Software: "archivectl", RobotsPolicy: "obey", Logger: logger})
	stopHeap()
	sum.WriteTo(os.Stdout)
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "Vm") || strings.HasPrefix(l, "Rss") {
				fmt.Fprintln(os.Stderr, "prof:", strings.Join(strings.Fields(l), " "))
			}
		}
	}
	if err != nil {
		log.Fatal(err)
	}
}

// crawl opens the crawl and the store of cfg.DataDir and runs the crawl.
func crawl(cfg crawler.Config, opt store.Options) (crawler.Summary, error) {
	cr, err := crawler.Open(cfg)
	if err != nil {
		return crawler.Summary{}, err
	}
	defer cr.Close()
	st, err := store.Open(cfg.DataDir, opt)
	if err != nil {
		return crawler.Summary{}, err
	}
	defer st.Close()
	return cr.Run(context.Background(), crawler.StoreArchive(st))
}

// watchHeap samples the live heap every 20 ms and keeps, in memory, the heap profile of the
// largest; the returned func stops sampling and writes that profile to path.
func watchHeap(path string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var best []byte
	var bestHeap uint64
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	wg.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			readRSS()
			memClasses()
			metrics.Read(sample)
			if h := sample[0].Value.Uint64(); h > bestHeap*11/10 {
				bestHeap = h
				var b bytesBuf
				if err := pprof.Lookup("heap").WriteTo(&b, 0); err == nil {
					best = b
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		if err := os.WriteFile(path, best, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "prof: heap profile at %.1f MiB of heap objects in %s; sampled peaks: RssAnon %.1f MiB, RssFile %.1f MiB\n",
			float64(bestHeap)/(1<<20), path, float64(peakAnon)/1024, float64(peakFile)/1024)
		fmt.Fprintf(os.Stderr, "prof: runtime memory at its peak, %.1f MiB not released:\n", float64(peakTotal)/(1<<20))
		for _, s := range peakClasses {
			if v := s.Value.Uint64(); v >= 256<<10 {
				fmt.Fprintf(os.Stderr, "prof:   %-50s %6.1f MiB\n", strings.TrimPrefix(s.Name, "/memory/classes/"), float64(v)/(1<<20))
			}
		}
	}
}

// peakClasses is the runtime's memory by class when their total was largest.
var (
	peakClasses []metrics.Sample
	peakTotal   uint64
)

// memClasses samples the runtime's memory classes and keeps the largest total.
func memClasses() {
	var ss []metrics.Sample
	for _, d := range metrics.All() {
		if strings.HasPrefix(d.Name, "/memory/classes/") && d.Name != "/memory/classes/total:bytes" {
			ss = append(ss, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(ss)
	var t uint64
	for _, s := range ss {
		if !strings.Contains(s.Name, "released") {
			t += s.Value.Uint64()
		}
	}
	if t > peakTotal {
		peakTotal, peakClasses = t, ss
	}
}

// peakAnon and peakFile are the largest RssAnon and RssFile (kB) readRSS has seen.
var peakAnon, peakFile int64

// readRSS samples the process's anonymous and file-backed resident memory.
func readRSS() {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "RssAnon:":
			peakAnon = max(peakAnon, n)
		case "RssFile:":
			peakFile = max(peakFile, n)
		}
	}
}

type bytesBuf []byte

func (b *bytesBuf) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
