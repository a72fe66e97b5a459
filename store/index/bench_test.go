package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/surt"
	bolt "go.etcd.io/bbolt"
)

// fillIndex writes n entries straight into a fresh index, due ones (ReleaseAt ≤ t0) first.
func fillIndex(b *testing.B, path string, n, due int, sync bool) time.Duration {
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoSync: !sync})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	for i := 0; i < n; i += 1000 {
		if err := db.Update(func(tx *bolt.Tx) error {
			if err := initBuckets(tx); err != nil {
				return err
			}
			for j := i; j < min(i+1000, n); j++ {
				at := t0.Add(time.Duration(j) * time.Second)
				rel := at.Add(embargo.Quarter.Duration())
				if j < due {
					rel = t0.Add(-time.Duration(due-j) * time.Second)
				}
				u := fmt.Sprintf("https://example%d.com/page/%d", j%1000, j)
				key, _ := surt.Key(u)
				e := Entry{ID: fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", j), URL: u, SURT: key, Time: at,
					Status: 200, Mime: "text/html", Headers: [][2]string{{"Content-Type", "text/html"}, {"Content-Length", "48000"}},
					PayloadDigest: Digest("sha256", fmt.Append(nil, j)), Period: embargo.Quarter, FirstSeen: at, ReleaseAt: rel,
					Request:  Location{File: "archivectl-20260301120000000-00001-host.warc.gz", Offset: int64(j) * 3000, Length: 300},
					Response: Location{File: "archivectl-20260301120000000-00001-host.warc.gz", Offset: int64(j)*3000 + 300, Length: 2400},
					Metadata: Location{File: "archivectl-20260301120000000-00001-host.warc.gz", Offset: int64(j)*3000 + 2700, Length: 300}}
				if err := putEntry(newCodec(tx), e); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// BenchmarkIndexInsert is the index insert rate: entries per second in transactions of 1000, synced.
func BenchmarkIndexInsert(b *testing.B) {
	const n = 20000
	for b.Loop() {
		d := fillIndex(b, filepath.Join(b.TempDir(), "index.db"), n, 0, true)
		b.ReportMetric(float64(n)/d.Seconds(), "entries/s")
	}
}

// BenchmarkDueScan is one release pass's scan: 1,000 due captures in an index of 1,000,000,
// including opening and closing index.db. Building the index takes a while: run it deliberately.
func BenchmarkDueScan(b *testing.B) {
	path := filepath.Join(b.TempDir(), "index.db")
	d := fillIndex(b, path, 1_000_000, 1000, false)
	st, _ := os.Stat(path)
	b.Logf("built a 1,000,000-entry index in %s (%d MiB)", d.Round(time.Millisecond), st.Size()>>20)
	ix := &Index{path: path, timeout: time.Second}
	b.Run("due-1000-of-1M", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := ix.Due(t0, func(Entry) error { n++; return nil }); err != nil || n != 1000 {
				b.Fatalf("due %d, %v", n, err)
			}
		}
	})
	b.Run("next", func(b *testing.B) {
		for b.Loop() {
			if _, ok, err := ix.Next(t0); err != nil || !ok {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMarkCommit is the index side of one release commit: Mark moving 1,000 due captures
// (scanned in release order, as a pass does) to Released, in an index of 200,000. Each round
// marks the next 1,000; at most 100 rounds (-benchtime 20x is plenty).
func BenchmarkMarkCommit(b *testing.B) {
	path := filepath.Join(b.TempDir(), "index.db")
	fillIndex(b, path, 200_000, 100_000, false)
	ix := &Index{path: path, timeout: time.Second}
	for b.Loop() {
		b.StopTimer()
		var marks []Mark
		errFull := fmt.Errorf("full")
		if err := ix.Due(t0, func(e Entry) error {
			marks = append(marks, Mark{ID: e.ID, State: Released, ReleaseAt: e.ReleaseAt,
				Public: Location{File: "shards/PUBLIC-20260301120000-00001.warc.gz", Offset: int64(len(marks)) * 3000, Length: 2400}})
			if len(marks) == 1000 {
				return errFull
			}
			return nil
		}); err != nil && err != errFull {
			b.Fatal(err)
		}
		if len(marks) < 1000 {
			b.Fatal("out of due captures: use -benchtime 20x")
		}
		b.StartTimer()
		if err := ix.Mark(marks); err != nil {
			b.Fatal(err)
		}
	}
}
