// Command scan measures the due scan of an archive built by bench/release/gen: index.db's bytes per
// capture, one scan with the page cache dropped first (cold), then warm ones; with -pass, one
// release pass at the same instant, cold too, on a copy (index.db copied, sealed files linked).
//
//	go run ./bench/release/scan -dir /tmp/archivectl-release-bench/gen-1000000 [-pass]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// summary is the part of gen's bench.json this reads.
type summary struct {
	Captures int       `json:"captures"`
	Now      time.Time `json:"now"`
	Due      int       `json:"due"`
}

func main() {
	dir := flag.String("dir", "", "an archive made by bench/release/gen")
	withPass := flag.Bool("pass", false, "also time one release pass (on a copy of index.db)")
	warm := flag.Int("warm", 3, "warm scans after the cold one")
	flag.Parse()
	if *dir == "" {
		log.Fatal("usage: scan -dir DIR [-pass]")
	}
	b, err := os.ReadFile(filepath.Join(*dir, "bench.json"))
	if err != nil {
		log.Fatal(err)
	}
	var sum summary
	if err := json.Unmarshal(b, &sum); err != nil {
		log.Fatal(err)
	}
	path := layout.Index(*dir)
	st, err := os.Stat(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("archive %s: %d captures, index.db %d bytes = %.0f bytes/capture\n", *dir, sum.Captures, st.Size(), float64(st.Size())/float64(sum.Captures))
	ix, err := store.OpenIndex(path, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	how, err := dropCache(path)
	if err != nil {
		log.Fatal(err)
	}
	d, n, err := scan(ix, sum.Now)
	if err != nil {
		log.Fatal(err)
	}
	if n != sum.Due {
		log.Fatalf("the scan yielded %d captures, bench.json says %d are due", n, sum.Due)
	}
	fmt.Printf("due scan yielding %d captures, cold (%s): %s, %d pages read\n", n, how, d.Round(10*time.Microsecond), lastFaults)
	for range *warm {
		d, _, err := scan(ix, sum.Now)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("due scan, warm: %s\n", d.Round(10*time.Microsecond))
	}
	if *withPass {
		if err := timePass(*dir, sum); err != nil {
			log.Fatal(err)
		}
	}
}

// scan runs one due scan and returns its duration and how many captures it yielded.
func scan(ix *store.Index, now time.Time) (time.Duration, int, error) {
	n := 0
	faults := majorFaults()
	start := time.Now()
	err := ix.Due(now, func(store.Entry) error { n++; return nil })
	d := time.Since(start)
	lastFaults = majorFaults() - faults
	return d, n, err
}

// lastFaults is how many pages the last scan read from disk (major page faults).
var lastFaults int64

func majorFaults() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Majflt
}

// dropCache empties the page cache: all of it through /proc/sys/vm/drop_caches when allowed,
// else index.db's pages with posix_fadvise(DONTNEED) after fsync. It says which it did.
func dropCache(paths ...string) (string, error) {
	syscall.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0o200); err == nil {
		return "page cache dropped with echo 3 > /proc/sys/vm/drop_caches", nil
	} else {
		fmt.Fprintf(os.Stderr, "scan: cannot drop the page cache (%v); using posix_fadvise(DONTNEED) on the files instead\n", err)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		f.Sync()
		const fadvDontNeed = 4
		_, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0)
		f.Close()
		if errno != 0 {
			return "", fmt.Errorf("fadvise %s: %w", p, errno)
		}
	}
	return "index.db's pages evicted with posix_fadvise(DONTNEED)", nil
}

// timePass runs one release pass at sum.Now, cold, on a copy of the archive (index.db and the
// access rules) whose sealed files are hard links (a pass only reads them), and removes the copy.
func timePass(dir string, sum summary) error {
	work := dir + ".pass"
	if err := os.RemoveAll(work); err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.MkdirAll(layout.Sealed(work), 0o700); err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(layout.Sealed(dir), "*"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.Link(f, filepath.Join(layout.Sealed(work), filepath.Base(f))); err != nil {
			return err
		}
	}
	if err := copyFile(layout.Index(dir), layout.Index(work)); err != nil {
		return err
	}
	for _, d := range []func(string) string{layout.Access, layout.Embargoed} {
		if err := os.MkdirAll(d(work), 0o755); err != nil {
			return err
		}
		days, err := filepath.Glob(filepath.Join(d(dir), "*"))
		if err != nil {
			return err
		}
		for _, f := range days {
			if err := copyFile(f, filepath.Join(d(work), filepath.Base(f))); err != nil {
				return err
			}
		}
	}
	how, err := dropCache(layout.Index(work))
	if err != nil {
		return err
	}
	r := release.New(work, release.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s, err := r.Pass(context.Background(), sum.Now)
	if err != nil {
		return err
	}
	fmt.Printf("release pass, cold (%s): released %d, tombstoned %d in %s\n", how, s.Released, s.Tombstoned, s.Duration.Round(time.Millisecond))
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
