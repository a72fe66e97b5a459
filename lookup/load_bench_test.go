package lookup

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public/pubindex"
)

// BenchmarkOpen opens the public index of the public directory named by
// ARCHIVECTL_BENCH_PUBLIC (see bench/lookup): what a lookup does before its first answer.
func BenchmarkOpen(b *testing.B) {
	dir := os.Getenv("ARCHIVECTL_BENCH_PUBLIC")
	if dir == "" {
		b.Skip("set ARCHIVECTL_BENCH_PUBLIC to a public directory (bench/lookup/run.sh makes one)")
	}
	for b.Loop() {
		set, err := pubindex.Open(&rootFS{dir: dir}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(set.Manifest.Stats.Released+set.Manifest.Stats.Embargoed), "captures")
		set.Close()
	}
}

// BenchmarkCaptures is the cost of one /api/v1/captures answer (two captures, one with headers)
// inside the process: routing, metrics, lookup and encoding, without the network.
func BenchmarkCaptures(b *testing.B) {
	s := standard(b).server(testNow)
	req := httptest.NewRequest(http.MethodGet, "/api/v1/captures?url=https%3A%2F%2Fwww.example.com%2Fa", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

// BenchmarkLookupAt answers /api/v1/captures for random URLs of the public directory named by
// ARCHIVECTL_BENCH_PUBLIC (its urls.txt beside it): one lookup, inside the process, at scale.
func BenchmarkLookupAt(b *testing.B) {
	dir := os.Getenv("ARCHIVECTL_BENCH_PUBLIC")
	if dir == "" {
		b.Skip("set ARCHIVECTL_BENCH_PUBLIC to a public directory (bench/lookup/run.sh makes one)")
	}
	s, err := Open(dir, Options{Logger: discard})
	if err != nil {
		b.Fatal(err)
	}
	urls := readLines(b, filepath.Join(filepath.Dir(dir), "urls.txt"))
	reqs := make([]*http.Request, 4096)
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodGet, "/api/v1/captures?url="+url.QueryEscape(urls[(i*7919)%len(urls)]), nil)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, reqs[i%len(reqs)])
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
		i++
	}
}

// BenchmarkExact compares one exact lookup and its encoding, without HTTP, in the public index
// and in the in-memory index the lookup used before it, over ARCHIVECTL_BENCH_PUBLIC.
func BenchmarkExact(b *testing.B) {
	dir := os.Getenv("ARCHIVECTL_BENCH_PUBLIC")
	if dir == "" {
		b.Skip("set ARCHIVECTL_BENCH_PUBLIC to a public directory (bench/lookup/run.sh makes one)")
	}
	urls := readLines(b, filepath.Join(filepath.Dir(dir), "urls.txt"))
	keys := make([]string, min(len(urls), 1<<19)) // many keys: blocks are read from memory, not from the CPU's caches
	for i := range keys {
		keys[i], _ = surt.Key(urls[(i*7919)%len(urls)])
	}
	s, err := Open(dir, Options{Logger: discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("index", func(b *testing.B) {
		ix := s.ix.Load()
		var buf []byte
		i := 0
		for b.Loop() {
			cs, err := ix.exact(keys[i%len(keys)])
			if err != nil || len(cs) == 0 {
				b.Fatal(err)
			}
			buf = appendCaptures(buf[:0], "u", "", cs, "")
			i++
		}
	})
	b.Run("in-memory", func(b *testing.B) {
		mem, err := loadMemIndex(os.DirFS(dir))
		if err != nil {
			b.Fatal(err)
		}
		var buf []byte
		i := 0
		for b.Loop() {
			cs := mem.exact(keys[i%len(keys)])
			if len(cs) == 0 {
				b.Fatal("no captures")
			}
			buf = appendCaptures(buf[:0], "u", "", cs, "")
			i++
		}
	})
}
