package extract

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/url"
	"os"
	"testing"

	"github.com/archivectl/archivectl/internal/testkit"
)

// BenchmarkHTML extracts the references of an article-like page as bench/crawl/site -article
// serves it (testdata/article.html: 55 KB, inline CSS, navigation, links in relative, absolute
// and fragment forms, a canonical link).
func BenchmarkHTML(b *testing.B) {
	page, err := os.ReadFile("testdata/article.html")
	if err != nil {
		b.Fatal(err)
	}
	base, _ := url.Parse("http://news.example/p/7")
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	cpu := testkit.SelfCPU()
	for b.Loop() {
		refs, _, err := HTML(base, bytes.NewReader(page))
		if err != nil || len(refs) < 10 {
			b.Fatalf("%d refs, %v", len(refs), err)
		}
	}
	b.ReportMetric(float64(testkit.SelfCPU()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkHTMLGzip is BenchmarkHTML with the page sent gzip-encoded, as bench/crawl/site
// -article -gzip serves it: Decoded inflates it on the way to HTML.
func BenchmarkHTMLGzip(b *testing.B) {
	page, err := os.ReadFile("testdata/article.html")
	if err != nil {
		b.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(page)
	zw.Close()
	h := http.Header{"Content-Encoding": {"gzip"}}
	base, _ := url.Parse("http://news.example/p/7")
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	cpu := testkit.SelfCPU()
	for b.Loop() {
		r, ok := Decoded(h, z.Bytes())
		if !ok {
			b.Fatal("not decoded")
		}
		refs, _, err := HTML(base, r)
		if err != nil || len(refs) < 10 {
			b.Fatalf("%d refs, %v", len(refs), err)
		}
	}
	b.ReportMetric(float64(testkit.SelfCPU()-cpu)/float64(b.N), "cpu-ns/op")
}
