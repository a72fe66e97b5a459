package robotsbench

import (
	"testing"

	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/temoto/robotstxt"
)

func TestCorpus(t *testing.T) {
	for _, f := range corpus() {
		if n := len(f.body); n > robots.MaxBytes || n < 10_000 {
			t.Errorf("%s: %d bytes, want 10 KB to 500 KB", f.name, n)
		}
		p := robots.NewPolicy(f.body)
		allowed := 0
		for _, path := range f.paths {
			if p.Evaluate(f.agent, path).Allowed {
				allowed++
			}
		}
		t.Logf("%s: %d bytes, %d paths, %d allowed", f.name, len(f.body), len(f.paths), allowed)
		if f.name != "hostile" && (allowed == 0 || allowed == len(f.paths)) {
			t.Errorf("%s: %d of %d paths allowed; the corpus should exercise both outcomes", f.name, allowed, len(f.paths))
		}
	}
}

// BenchmarkParseEvaluate parses each file and evaluates every sample path once: the work of
// a crawler meeting a new origin. Throughput is robots.txt bytes per second.
func BenchmarkParseEvaluate(b *testing.B) {
	for _, f := range corpus() {
		b.Run(f.name+"/archivectl", func(b *testing.B) {
			b.SetBytes(int64(len(f.body)))
			b.ReportAllocs()
			for b.Loop() {
				p := robots.NewPolicy(f.body)
				for _, path := range f.paths {
					p.Evaluate(f.agent, path)
				}
			}
		})
		b.Run(f.name+"/temoto", func(b *testing.B) {
			b.SetBytes(int64(len(f.body)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := robotstxt.FromBytes(f.body)
				if err != nil {
					b.Fatal(err)
				}
				g := r.FindGroup(f.agent)
				for _, path := range f.paths {
					g.Test(path)
				}
			}
		})
	}
}

// BenchmarkParse parses each file only.
func BenchmarkParse(b *testing.B) {
	for _, f := range corpus() {
		b.Run(f.name+"/archivectl", func(b *testing.B) {
			b.SetBytes(int64(len(f.body)))
			b.ReportAllocs()
			for b.Loop() {
				robots.NewPolicy(f.body)
			}
		})
		b.Run(f.name+"/temoto", func(b *testing.B) {
			b.SetBytes(int64(len(f.body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := robotstxt.FromBytes(f.body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEvaluate evaluates every sample path against an already parsed file: the work
// per URL of a crawl. It should not allocate.
func BenchmarkEvaluate(b *testing.B) {
	for _, f := range corpus() {
		p := robots.NewPolicy(f.body)
		b.Run(f.name+"/archivectl", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, path := range f.paths {
					p.Evaluate(f.agent, path)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(f.paths)), "ns/url")
		})
		r, err := robotstxt.FromBytes(f.body)
		if err != nil {
			b.Fatal(err)
		}
		g := r.FindGroup(f.agent)
		b.Run(f.name+"/temoto", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, path := range f.paths {
					g.Test(path)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(f.paths)), "ns/url")
		})
	}
}
