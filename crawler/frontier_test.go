package crawler

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
)

func TestFrontierResume(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "frontier.db")
	seeds := []string{"http://a.example/", "http://b.example/"}
	at := time.Date(2026, 11, 29, 12, 0, 0, 123, time.UTC)

	f, res, err := openFrontier(path, seeds, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Fresh || len(res.Pending) != 0 {
		t.Fatalf("new frontier: %+v", res)
	}
	items := f.claim([]item{{URL: seeds[0]}, {URL: seeds[1]}, {URL: seeds[0]}})
	if len(items) != 2 {
		t.Fatalf("claim kept %d of a duplicate list, want 2", len(items))
	}
	if err := f.add(items); err != nil {
		t.Fatal(err)
	}
	found := []item{{URL: "http://a.example/x", Depth: 1}, {URL: "http://a.example/r", Depth: 0, Redirects: 3}}
	if err := f.record([]urlChange{{Item: items[0], State: sealing, At: at, Found: found}}); err != nil {
		t.Fatal(err)
	}
	if err := f.record([]urlChange{{Item: items[1], State: done}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openFrontier(path, seeds, 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "is busy") {
		t.Fatalf("second open of a held frontier: %v, want a busy error", err)
	}
	f.close()

	tests := []struct {
		name  string
		seeds []string
		check func(t *testing.T, res resumed)
	}{
		{"same seeds resume", []string{seeds[1], seeds[0]}, func(t *testing.T, res resumed) {
			if res.Fresh || res.Done != 1 || len(res.Pending) != 3 {
				t.Fatalf("resumed %+v, want 3 pending and 1 done", res)
			}
			if got := res.Sealing[seeds[0]]; !got.Equal(at) {
				t.Fatalf("sealing time %v, want %v", got, at)
			}
			for _, it := range res.Pending {
				if it.URL == "http://a.example/r" && (it.Depth != 0 || it.Redirects != 3) {
					t.Fatalf("item %+v lost its depth or redirects", it)
				}
			}
		}},
		{"other seeds start afresh", []string{"http://c.example/"}, func(t *testing.T, res resumed) {
			if !res.Fresh || len(res.Pending) != 0 || res.Done != 0 {
				t.Fatalf("other seeds: %+v, want a fresh crawl", res)
			}
		}},
	}
	for _, tc := range tests { // sequential: they share the file
		t.Run(tc.name, func(t *testing.T) {
			f, res, err := openFrontier(path, tc.seeds, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer f.close()
			tc.check(t, res)
		})
	}
}

// TestItemEncoding round-trips items through the persisted form: a plain item keeps the form
// it always had, an extended one keeps its provenance in every state.
func TestItemEncoding(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 12, 0, 0, 123, time.UTC)
	tests := []struct {
		name string
		it   item
		st   urlState
	}{
		{"plain pending", item{URL: "u", Depth: 2, Redirects: 1}, pending},
		{"plain sealing", item{URL: "u", Depth: 2}, sealing},
		{"requisite", item{URL: "u", Depth: 1, Kind: kindRequisite, Hops: 2, Via: "http://a.example/", ViaTime: at, ViaID: "<urn:uuid:x>"}, pending},
		{"requisite sealing", item{URL: "u", Kind: kindRequisite, Hops: 1, Via: "http://a.example/", ViaTime: at}, sealing},
		{"sitemap", item{URL: "u", Kind: kindSitemap, Hops: 1}, done},
		{"page from a sitemap", item{URL: "u", Depth: 1, Via: "http://a.example/sitemap.xml", Lastmod: "2026-11-01"}, skipped},
		{"embedded page", item{URL: "u", Depth: 2, Via: "http://a.example/", ViaTime: at, Embedded: true}, pending},
		{"embedded page sealing", item{URL: "u", Depth: 1, Via: "http://a.example/s.css", ViaTime: at, ViaID: "<urn:uuid:x>", Embedded: true}, sealing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := encodeItem(tc.it, tc.st, at)
			if !tc.it.extended() && len(b) > 1+2+8 {
				t.Errorf("plain item encoded in %d bytes: the old form grew", len(b))
			}
			got, st, gotAt := decodeItem([]byte(tc.it.URL), b)
			if got != tc.it || st != tc.st || tc.st == sealing && !gotAt.Equal(at) {
				t.Fatalf("decoded %+v %v %v\nwant    %+v %v", got, st, gotAt, tc.it, tc.st)
			}
			if tc.it.Embedded { // without its last byte, the form frontiers held before it: not embedded
				old := tc.it
				old.Embedded = false
				if got, _, _ := decodeItem([]byte(tc.it.URL), b[:len(b)-1]); got != old {
					t.Errorf("old form decoded %+v, want %+v", got, old)
				}
			}
			for n := range b { // a cut value decodes without panicking
				decodeItem([]byte("u"), b[:n])
			}
		})
	}
}

func TestFrontierCompleteStartsAfresh(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "frontier.db")
	seeds := []string{"http://a.example/"}
	f, _, err := openFrontier(path, seeds, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	f.add([]item{{URL: seeds[0]}})
	if err := f.complete(); err != nil {
		t.Fatal(err)
	}
	f.close()
	f, res, err := openFrontier(path, seeds, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	if !res.Fresh || len(res.Pending) != 0 {
		t.Fatalf("after a completed crawl: %+v, want a fresh one", res)
	}
}

func TestSummaryWriteTo(t *testing.T) {
	t.Parallel()
	s := Summary{Pages: 10, Revisits: 2, Bytes: 2048, Robots: 3, Disallowed: 4,
		Embargoed: map[embargo.Period]int{31: 1, 90: 5}, Errors: map[string]int{"reset": 1, "timeout": 2}, Duration: 2 * time.Second}
	var b strings.Builder
	s.WriteTo(&b)
	for _, want := range []string{"pages        10 (2 revisits)", "bytes        2048", "disallowed   4", "m(31d)=1 q(90d)=5", "reset=1 timeout=2", "rate         5.0 pages/s"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

func TestQueuedKeepsItems(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tests := []item{
		{URL: "http://a.example/"},
		{URL: "http://a.example/x", Depth: 7, Redirects: 2},
		{URL: "http://a.example/deep", Depth: 1 << 40},
		{URL: "http://cdn.example/s.css", Depth: 2, Kind: kindRequisite, Hops: 1, Via: "http://a.example/x", ViaTime: at, ViaID: "<urn:uuid:1>"},
		{URL: "http://a.example/listed", Via: "http://a.example/sitemap.xml", Lastmod: "2026-11-01"},
		{URL: "http://a.example/sitemap.xml", Kind: kindSitemap},
	}
	for _, it := range tests {
		q := toQueued(it)
		if got := q.item(); got != it {
			t.Errorf("%s: queued and back: %+v, want %+v", it.URL, got, it)
		}
		if !it.extended() && it.Depth < 1<<31 && q.ext != nil {
			t.Errorf("%s: a plain item kept whole", it.URL)
		}
	}
}
