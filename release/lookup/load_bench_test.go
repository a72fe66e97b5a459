package lookup

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/archivectl/archivectl/release/pubindex"
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
