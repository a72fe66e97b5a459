package store

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

// benchPages is real HTML from the Go distribution cut into pages of about 48 KB (the size of a
// typical HTML page); it falls back to generated text when GOROOT has no docs.
func benchPages(b *testing.B) [][]byte {
	var pages [][]byte
	for _, p := range []string{"doc/go_spec.html", "doc/go_mem.html", "doc/asm.html", "src/internal/trace/traceviewer/static/trace_viewer_full.html"} {
		data, err := os.ReadFile(filepath.Join(runtime.GOROOT(), p))
		if err != nil {
			continue
		}
		for len(data) > 0 {
			n := min(len(data), 48<<10)
			pages = append(pages, data[:n])
			data = data[n:]
		}
	}
	if len(pages) == 0 {
		for i := range 64 {
			pages = append(pages, bytes.Repeat(fmt.Appendf(nil, "<p>page %d paragraph</p>\n", i), 2000))
		}
	}
	return pages
}

func benchCaptures(pages [][]byte) []Capture {
	caps := make([]Capture, len(pages))
	for i, p := range pages {
		caps[i] = capture(fmt.Sprintf("https://example.com/doc/%d", i), t0.Add(time.Duration(i)*time.Second), string(p))
		caps[i].Period = embargo.Quarter
	}
	return caps
}

// reportCPU adds the CPU time per MB of raw input, a figure that a busy machine disturbs less
// than wall time does.
func reportCPU(b *testing.B, start time.Duration, bytes int64) {
	mb := float64(bytes) * float64(b.N) / 1e6
	b.ReportMetric(float64(testkit.SelfCPU()-start)/1e6/mb, "cpu-ms/MB")
}

// BenchmarkWriter compares Seal (records built with both digests, gzip member per record, fsync,
// index commit) against plain klauspost gzip, one member per record, of the same raw record bytes.
// Throughput is MB/s of raw (uncompressed) record bytes in; the ratio is Seal / gzip.
func BenchmarkWriter(b *testing.B) {
	caps := benchCaptures(benchPages(b))
	// The raw records Seal writes, marshalled once, for the baseline.
	var raws [][]byte
	var rawTotal int64
	for _, c := range caps {
		for _, r := range [][]byte{c.Request, c.Response} {
			t := gowarc.Request
			if bytes.HasPrefix(r, []byte("HTTP/")) {
				t = gowarc.Response
			}
			rec, err := buildRecord("sha256", t, t0, typeResponse, r, field{gowarc.WarcTargetURI, c.URL})
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			if _, _, err := gowarc.NewMarshaler().Marshal(&buf, rec, 0); err != nil {
				b.Fatal(err)
			}
			rec.Close()
			raws = append(raws, buf.Bytes())
			rawTotal += int64(buf.Len())
		}
	}
	b.Run("gzip-baseline", func(b *testing.B) {
		b.SetBytes(rawTotal)
		var out bytes.Buffer
		gz, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
		start := testkit.SelfCPU()
		defer func() { reportCPU(b, start, rawTotal) }()
		for b.Loop() {
			out.Reset()
			for _, r := range raws {
				gz.Reset(&out)
				gz.Write(r)
				gz.Close()
			}
		}
	})
	b.Run("records-no-io", func(b *testing.B) {
		// The CPU side of Seal alone: parse, build records with both digests, compress members.
		s := openTestStore(b, b.TempDir(), Options{})
		defer s.Close()
		b.SetBytes(rawTotal)
		start := testkit.SelfCPU()
		defer func() { reportCPU(b, start, rawTotal) }()
		for b.Loop() {
			ps := make([]*sealing, len(caps))
			if err := parallel(context.Background(), len(caps), func(i int) (err error) {
				if ps[i], err = s.build(caps[i]); err == nil {
					ps[i].e.ReleaseAt = ps[i].e.Time
					err = s.encode(ps[i])
				}
				return err
			}); err != nil {
				b.Fatal(err)
			}
			for _, p := range ps {
				p.close()
			}
		}
	})
	for _, batch := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("seal-batch-%d", batch), func(b *testing.B) {
			dir := b.TempDir()
			s := openTestStore(b, dir, Options{})
			defer s.Close()
			b.SetBytes(rawTotal)
			start := testkit.SelfCPU()
			defer func() { reportCPU(b, start, rawTotal) }()
			round := 0
			for b.Loop() {
				round++
				for i := 0; i < len(caps); i += batch {
					part := append([]Capture(nil), caps[i:min(i+batch, len(caps))]...)
					for j := range part {
						part[j].URL = fmt.Sprintf("%s/%d", part[j].URL, round) // fresh URLs: no revisits
					}
					if _, err := s.Seal(context.Background(), part); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// sealedRecords seals caps into a scratch store and returns the uncompressed bytes of every
// record Seal wrote for them (request, response, metadata: one slice per gzip member), so that a
// baseline compresses exactly the bytes Seal does.
func sealedRecords(b *testing.B, caps []Capture) (raws [][]byte, total int64) {
	dir := b.TempDir()
	s := openTestStore(b, dir, Options{})
	es, err := s.Seal(context.Background(), caps)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	for _, e := range es {
		for _, loc := range []Location{e.Request, e.Response, e.Metadata} {
			f, err := os.Open(filepath.Join(dir, "sealed", loc.File))
			if err != nil {
				b.Fatal(err)
			}
			zr, err := gzip.NewReader(io.NewSectionReader(f, loc.Offset, loc.Length))
			if err != nil {
				b.Fatal(err)
			}
			raw, err := io.ReadAll(zr)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			raws = append(raws, raw)
			total += int64(len(raw))
		}
	}
	return raws, total
}

// BenchmarkWriterVsGzip is sealing against klauspost gzip of the same bytes in one run: each round
// times one goroutine compressing every record Seal writes as one gzip stream (the default level,
// as Seal uses), then Seal of the same captures (fresh URLs: no revisits) with its fsyncs and index
// commits, the order alternating between rounds. The ratio is the median over rounds of gzip's time
// over Seal's (≥ 1: Seal keeps up with gzip). Seal is given the 62 pages in batches of 64 (one Seal
// a round), or 4 copies of them (248 captures, 12 MB) in batches of 256 as a crawl gives it when it
// fetches faster than it seals. Run it with -benchtime Nx, N ≥ 5. It also reports the median
// CPU time (user + system, every goroutine) of each per MB: a busy machine disturbs it less.
func BenchmarkWriterVsGzip(b *testing.B) {
	pages := benchCaptures(benchPages(b))
	for _, tc := range []struct {
		copies, batch int
	}{{1, 64}, {4, 256}} {
		b.Run(fmt.Sprintf("batch-%d", tc.batch), func(b *testing.B) {
			var caps []Capture
			for c := range tc.copies {
				for _, p := range pages {
					p.URL = fmt.Sprintf("%s/copy%d", p.URL, c)
					caps = append(caps, p)
				}
			}
			writerVsGzip(b, caps, tc.batch)
		})
	}
}

func writerVsGzip(b *testing.B, caps []Capture, batch int) {
	raws, rawTotal := sealedRecords(b, caps)
	s := openTestStore(b, b.TempDir(), Options{})
	defer s.Close()
	var gzCPU, sealCPU []float64 // CPU time of each run, user + system, all goroutines
	gzipOnce := func() time.Duration {
		start, cpu := time.Now(), testkit.SelfCPU()
		gz, _ := gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression)
		for _, r := range raws {
			gz.Write(r)
		}
		gz.Close()
		gzCPU = append(gzCPU, (testkit.SelfCPU() - cpu).Seconds())
		return time.Since(start)
	}
	round := 0
	sealOnce := func() time.Duration {
		round++
		part := append([]Capture(nil), caps...)
		for j := range part {
			part[j].URL = fmt.Sprintf("%s/%d", part[j].URL, round)
		}
		start, cpu := time.Now(), testkit.SelfCPU()
		for i := 0; i < len(part); i += batch {
			if _, err := s.Seal(context.Background(), part[i:min(i+batch, len(part))]); err != nil {
				b.Fatal(err)
			}
		}
		sealCPU = append(sealCPU, (testkit.SelfCPU() - cpu).Seconds())
		return time.Since(start)
	}
	var ratios, gzs, seals []float64
	b.SetBytes(rawTotal)
	for b.Loop() {
		var g, w time.Duration
		if round%2 == 0 {
			g, w = gzipOnce(), sealOnce()
		} else {
			w, g = sealOnce(), gzipOnce()
		}
		gzs, seals = append(gzs, g.Seconds()), append(seals, w.Seconds())
		ratios = append(ratios, g.Seconds()/w.Seconds())
	}
	mb := float64(rawTotal) / 1e6
	b.ReportMetric(testkit.Median(ratios), "ratio-vs-gzip")
	b.ReportMetric(mb/testkit.Median(gzs), "gzip-MB/s")
	b.ReportMetric(mb/testkit.Median(seals), "seal-MB/s")
	b.ReportMetric(1000*testkit.Median(gzCPU)/mb, "gzip-cpu-ms/MB")
	b.ReportMetric(1000*testkit.Median(sealCPU)/mb, "seal-cpu-ms/MB")
	b.Logf("%d captures, %.1f MB of records, %d rounds: ratios %.2f (median %.2f)", len(caps), mb, len(ratios), ratios, testkit.Median(ratios))
}
