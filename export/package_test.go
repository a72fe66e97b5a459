package export

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPackageReader reads a package laid out for an export at random ranges, as an HTTP client
// does, and gets the bytes WriteWACZ writes; then a shard changed after the layout makes WriteTo
// fail rather than write a package whose CRC lies.
func TestPackageReader(t *testing.T) {
	t.Parallel()
	a := standardFixture(t)
	want, _ := writeTestWACZ(t, a, Filter{})
	sel, err := Select(context.Background(), a.fsys, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := pack(context.Background(), a.fsys, &packing{caps: sel.Kept,
		whole:    func(shard string, n int) bool { return n == sel.perShard[shard] },
		describe: func(string, int) string { return "" }}, WACZOptions{Created: created, Software: "test"}, dataPackage{
		Title:       "Released captures of an archivectl archive",
		Description: "Captures this archive has made public after their embargo, exported from its public side (" + sel.Filter.String() + ").",
		Export:      exportInfo{Filter: new(newFilterInfo(&sel.Filter)), Counts: new(sel.Counts())},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Size() != int64(len(want)) {
		t.Fatalf("Size %d, WriteWACZ wrote %d", p.Size(), len(want))
	}
	r := p.Open()
	defer r.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		off := rng.Int64N(int64(len(want)))
		n := 1 + rng.IntN(4096)
		buf := make([]byte, n)
		m, err := r.ReadAt(buf, off)
		end := min(off+int64(n), int64(len(want)))
		if m != int(end-off) || (m < n) != errors.Is(err, io.EOF) || !bytes.Equal(buf[:m], want[off:end]) {
			t.Fatalf("ReadAt(%d bytes at %d) = %d, %v; want the package's bytes %d-%d", n, off, m, err, off, end)
		}
	}
	var all bytes.Buffer
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(&all, r); err != nil || !bytes.Equal(all.Bytes(), want) {
		t.Fatalf("reading it through: %v, %d bytes equal %v", err, all.Len(), bytes.Equal(all.Bytes(), want))
	}

	shard := filepath.Join(a.dir, a.shards[0])
	b, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-5] ^= 0xff
	if err := os.WriteFile(shard, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WriteTo(context.Background(), io.Discard); err == nil || !strings.Contains(err.Error(), "changed while it was being packed") {
		t.Errorf("WriteTo after a shard changed: %v", err)
	}
}

// TestPageWACZ packs one page: a revisit page with its original, listed alone in pages.jsonl
// (with its original's title), in -selected files only, each index line at its record; a revisit
// page without its original is refused, a revisit need without its own is left out.
func TestPageWACZ(t *testing.T) {
	t.Parallel()
	a := standardFixture(t)
	sel, err := Select(context.Background(), a.fsys, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	byURL := map[string]Capture{}
	for _, c := range sel.Kept {
		byURL[c.URL] = c
	}
	page, orig, css := byURL["http://example.com/again"], byURL["http://example.com/"], byURL["http://example.com/style.css"]
	p, err := PageWACZ(context.Background(), a.fsys, page, []Capture{css, orig, css}, 2, WACZOptions{Created: created, Software: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if n, err := p.WriteTo(context.Background(), &b); err != nil || n != p.Size() {
		t.Fatalf("WriteTo: %d, %v (size %d)", n, err, p.Size())
	}
	w := readWACZ(t, b.Bytes())
	checkPackage(t, a, w)
	var names []string
	for _, n := range w.names {
		if strings.HasPrefix(n, "archive/") {
			names = append(names, n)
			if !strings.HasSuffix(n, selectedSuffix+".warc.gz") {
				t.Errorf("%s: a page's package has -selected files only", n)
			}
		}
	}
	if len(names) != 2 {
		t.Errorf("archive/ holds %v, want a file for each of the two shards", names)
	}
	pages := strings.Split(strings.TrimSpace(string(w.files["pages/pages.jsonl"])), "\n")
	if want := `{"id":"` + pageID(page.ID) + `","url":"http://example.com/again","ts":"2026-03-02T12:00:00Z","title":"Home & away"}`; len(pages) != 2 || pages[1] != want {
		t.Errorf("pages.jsonl %q, want the page alone: %s", pages, want)
	}
	var urls []string
	for _, l := range strings.Split(strings.TrimSpace(string(w.files["indexes/index.cdxj"])), "\n") {
		urls = append(urls, checkStandardLine(t, l)["url"])
	}
	slices.Sort(urls)
	if want := []string{"http://example.com/", "http://example.com/again", "http://example.com/style.css"}; !slices.Equal(urls, want) {
		t.Errorf("index %v, want %v", urls, want)
	}
	if !bytes.Contains(w.files["datapackage.json"], []byte(`"embargoed_requisites": 2`)) {
		t.Errorf("datapackage.json does not count the requisites under embargo:\n%s", w.files["datapackage.json"])
	}

	if _, err := PageWACZ(context.Background(), a.fsys, page, []Capture{css}, 0, WACZOptions{Created: created}); err == nil {
		t.Error("a revisit page without its original is packed")
	}
	p, err = PageWACZ(context.Background(), a.fsys, css, []Capture{page}, 0, WACZOptions{Created: created})
	if err != nil {
		t.Fatal(err)
	}
	if p.Summary().Pages != 0 || bytes.Contains(mustWrite(t, p), []byte("http://example.com/again")) {
		t.Error("a revisit need without its original is packed")
	}
}

func mustWrite(t *testing.T, p *Package) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := p.WriteTo(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadFacts reads the outlinks of metadata blocks in both forms, and says ErrNoFacts where no
// metadata record of the capture follows its response (records the crawler wrote are read by
// lookup's TestPageWACZ).
func TestReadFacts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ctype, block string
		want               []string
		noFacts            bool
	}{
		{"fields", "application/warc-fields", "format: archivectl-capture-facts/2\r\ncapture: x\r\noutlink: http://a.example/1\r\noutlink: http://a.example/2\r\n", []string{"http://a.example/1", "http://a.example/2"}, false},
		{"json", "application/json", `{"format":"archivectl-capture-facts/1","outlinks":["http://a.example/j"]}`, []string{"http://a.example/j"}, false},
		{"unknown form", "application/json", `{"usage":"facts"}`, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseFacts(tc.ctype, []byte(tc.block))
			if tc.want == nil {
				if err == nil {
					t.Errorf("parseFacts = %v, want an error", got)
				}
				return
			}
			if err != nil || !slices.Equal(got.Outlinks, tc.want) {
				t.Errorf("parseFacts = %v, %v; want %v", got.Outlinks, err, tc.want)
			}
		})
	}
	a := standardFixture(t)
	sel, err := Select(context.Background(), a.fsys, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	c := sel.Kept[0]
	if _, err := ReadFacts(a.fsys, &c); !errors.Is(err, ErrNoFacts) { // the fixture's metadata records name no capture
		t.Errorf("ReadFacts of a metadata record not concurrent to the capture: %v, want ErrNoFacts", err)
	}
	c.Response.Length = c.Members[0].Length // the request member: what follows it is the response
	c.Response.Offset = c.Members[0].Offset
	if _, err := ReadFacts(a.fsys, &c); !errors.Is(err, ErrNoFacts) {
		t.Errorf("ReadFacts after the request: %v, want ErrNoFacts", err)
	}
}

// FuzzParseFacts: any metadata block parses or is an error, never a panic, and what parses
// keeps its outlinks as written (a JSON block's invalid UTF-8 decodes to U+FFFD, as
// encoding/json does, so only valid UTF-8 is compared; a folded field's lines are joined by one
// space, so the comparison is of the text without its spaces, tabs and line ends).
func FuzzParseFacts(f *testing.F) {
	f.Add("application/warc-fields", "format: archivectl-capture-facts/2\r\noutlink: http://a.example/\r\n")
	f.Add("application/warc-fields", "format: archivectl-capture-facts/2\r\noutlink: =?utf-8?b?aHR0cDovL2Euc\r\n ?=\r\n")
	f.Add("application/json", `{"format":"archivectl-capture-facts/1","outlinks":["x"]}`)
	f.Add("application/json", `{"format":1}`)
	f.Fuzz(func(t *testing.T, ctype, block string) {
		facts, err := parseFacts(ctype, []byte(block))
		if err != nil {
			return
		}
		for _, u := range facts.Outlinks {
			if utf8.ValidString(block) && !strings.Contains(unspaced(block), unspaced(u)) && !strings.Contains(block, "=?") && !strings.Contains(block, `\`) {
				t.Errorf("outlink %q is not in the block %q", u, block)
			}
		}
	})
}

// unspaced is s without spaces, tabs and line ends.
func unspaced(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s)
}

// TestPackageHoldsNoPayload lays out the package of a page whose record is over 6 MiB: the package
// keeps its zip headers, index, pages and datapackage.json, a few KiB, and refers to the record.
func TestPackageHoldsNoPayload(t *testing.T) {
	t.Parallel()
	noise := make([]byte, 6<<20)
	rand.NewChaCha8([32]byte{3, 4}).Read(noise)
	big := "<title>Big</title>" + base64.StdEncoding.EncodeToString(noise) // 8 MiB that gzip cannot shrink much
	a := buildPublic(t, []fix{{url: "http://example.com/big", status: 200, mime: "text/html", body: big}})
	sel, err := Select(context.Background(), a.fsys, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := PageWACZ(context.Background(), a.fsys, sel.Kept[0], nil, 0, WACZOptions{Created: created})
	if err != nil {
		t.Fatal(err)
	}
	own := 0
	for _, s := range p.segs {
		own += len(s.data)
	}
	if own > 16<<10 || p.Size() < 6<<20 {
		t.Errorf("a package of %d bytes holds %d of its own; want the record referred to, not held", p.Size(), own)
	}
}
