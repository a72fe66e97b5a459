package export

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/warcrecord"
)

var created = time.Date(2026, 6, 1, 8, 30, 0, 0, time.UTC)

// waczFile is a package read back: its entries' headers and contents.
type waczFile struct {
	headers map[string]*zip.FileHeader
	files   map[string][]byte
	names   []string
}

func readWACZ(t *testing.T, b []byte) *waczFile {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip file: %v", err)
	}
	w := &waczFile{headers: map[string]*zip.FileHeader{}, files: map[string][]byte{}}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc) // checks the CRC
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		w.headers[f.Name], w.files[f.Name] = &f.FileHeader, data
		w.names = append(w.names, f.Name)
	}
	return w
}

// checkPackage checks what every package must be: WARCs stored, no data descriptors, every file
// listed in datapackage.json with its right SHA-256 and size, datapackage-digest.json right,
// and every index line pointing at its capture's record. It returns datapackage.json.
func checkPackage(t *testing.T, a *fixArchive, w *waczFile) map[string]any {
	t.Helper()
	for name, h := range w.headers {
		if h.Flags&0x8 != 0 {
			t.Errorf("%s: has a data descriptor", name)
		}
		if strings.HasPrefix(name, "archive/") && h.Method != zip.Store {
			t.Errorf("%s: method %d, want stored", name, h.Method)
		}
		if !h.Modified.Equal(created) && !h.Modified.IsZero() || h.ModifiedDate == 0 {
			t.Errorf("%s: modified %v (%d)", name, h.Modified, h.ModifiedDate)
		}
	}
	var dp struct {
		Profile     string `json:"profile"`
		WACZVersion string `json:"wacz_version"`
		Created     string `json:"created"`
		Software    string `json:"software"`
		Resources   []struct {
			Name, Path, Hash string
			Bytes            int64
		} `json:"resources"`
	}
	if err := json.Unmarshal(w.files["datapackage.json"], &dp); err != nil {
		t.Fatalf("datapackage.json: %v", err)
	}
	if dp.Profile != "data-package" || dp.WACZVersion != "1.1.1" || dp.Created != "2026-06-01T08:30:00Z" || dp.Software != "test" {
		t.Errorf("datapackage.json: %+v", dp)
	}
	listed := map[string]bool{}
	for _, r := range dp.Resources {
		sum := sha256.Sum256(w.files[r.Path])
		if data, ok := w.files[r.Path]; !ok || r.Hash != "sha256:"+hex.EncodeToString(sum[:]) || r.Bytes != int64(len(data)) {
			t.Errorf("resource %s: hash %s, %d bytes; the entry has %d bytes (present %v)", r.Path, r.Hash, r.Bytes, len(data), ok)
		}
		if r.Name != strings.ToLower(r.Path[strings.LastIndexByte(r.Path, '/')+1:]) {
			t.Errorf("resource %s: name %q", r.Path, r.Name)
		}
		listed[r.Path] = true
	}
	for _, name := range w.names {
		if !listed[name] && name != "datapackage.json" && name != "datapackage-digest.json" {
			t.Errorf("%s is not listed in datapackage.json", name)
		}
	}
	var dd struct{ Path, Hash string }
	sum := sha256.Sum256(w.files["datapackage.json"])
	if err := json.Unmarshal(w.files["datapackage-digest.json"], &dd); err != nil || dd.Path != "datapackage.json" || dd.Hash != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("datapackage-digest.json: %+v (%v)", dd, err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(w.files["indexes/index.cdxj"])), "\n") {
		b := checkStandardLine(t, line)
		off, _ := strconv.ParseInt(b["offset"], 10, 64)
		n, _ := strconv.ParseInt(b["length"], 10, 64)
		warc := w.files["archive/"+b["filename"]]
		if off+n > int64(len(warc)) {
			t.Errorf("%q: beyond archive/%s (%d bytes)", line, b["filename"], len(warc))
			continue
		}
		if id := recordID(t, warc[off:off+n]); id != a.ids[b["url"]] {
			t.Errorf("%q: record %s there, want %s", line, id, a.ids[b["url"]])
		}
	}
	var all map[string]any
	json.Unmarshal(w.files["datapackage.json"], &all)
	return all
}

// recordID is the WARC-Record-ID of the record in a gzip member.
func recordID(t *testing.T, member []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(member))
	if err != nil {
		t.Fatalf("not a gzip member: %v", err)
	}
	zr.Multistream(false)
	h, err := warcrecord.ReadHeader(bufio.NewReader(zr))
	if err != nil {
		t.Fatal(err)
	}
	return h.Get("WARC-Record-ID")
}

func writeTestWACZ(t *testing.T, a *fixArchive, f Filter) ([]byte, WACZSummary) {
	t.Helper()
	sel, err := Select(context.Background(), a.fsys, f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	s, err := WriteWACZ(context.Background(), &b, a.fsys, sel, WACZOptions{Created: created, Software: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Bytes != int64(b.Len()) {
		t.Errorf("summary says %d bytes, wrote %d", s.Bytes, b.Len())
	}
	return b.Bytes(), s
}

func TestWriteWACZ(t *testing.T) {
	t.Parallel()
	a := standardFixture(t)
	b, s := writeTestWACZ(t, a, Filter{})
	w := readWACZ(t, b)
	checkPackage(t, a, w)
	want := []string{"archive/" + a.shards[0][len("shards/"):], "archive/" + a.shards[1][len("shards/"):],
		"indexes/index.cdxj", "pages/pages.jsonl", "datapackage.json", "datapackage-digest.json"}
	if !slices.Equal(w.names, want) {
		t.Errorf("entries %q, want %q", w.names, want)
	}
	for _, sh := range a.shards {
		orig, _ := os.ReadFile(a.dir + "/" + sh)
		if !bytes.Equal(w.files["archive/"+sh[len("shards/"):]], orig) {
			t.Errorf("%s is not packed byte for byte", sh)
		}
	}
	if s.Kept != 6 || s.WARCFiles != 2 || s.Pages != 4 {
		t.Errorf("summary %+v", s)
	}
	pages := strings.Split(strings.TrimSpace(string(w.files["pages/pages.jsonl"])), "\n")
	wantPages := []string{
		`{"format":"json-pages-1.0","id":"pages","title":"All Pages"}`,
		`{"id":"` + pageID(a.ids["http://example.com/"]) + `","url":"http://example.com/","ts":"2026-03-01T12:00:00Z","title":"Home & away"}`,
		`{"id":"` + pageID(a.ids["http://example.com/news/a"]) + `","url":"http://example.com/news/a","ts":"2026-03-01T12:02:00Z","title":"Chunked news"}`,
		`{"id":"` + pageID(a.ids["http://example.com/news/b"]) + `","url":"http://example.com/news/b","ts":"2026-03-01T12:03:00Z","title":"Zipped news"}`,
		`{"id":"` + pageID(a.ids["http://example.com/again"]) + `","url":"http://example.com/again","ts":"2026-03-02T12:00:00Z","title":"Home & away"}`,
	}
	if !slices.Equal(pages, wantPages) {
		t.Errorf("pages.jsonl:\n%s\nwant:\n%s", strings.Join(pages, "\n"), strings.Join(wantPages, "\n"))
	}
	if again, _ := writeTestWACZ(t, a, Filter{}); !bytes.Equal(again, b) {
		t.Error("two exports at the same time differ")
	}
}

func TestWriteWACZFiltered(t *testing.T) {
	t.Parallel()
	a := standardFixture(t)
	r, _ := ParseUsageRule("train-ai=n")
	b, s := writeTestWACZ(t, a, Filter{Exclude: []UsageRule{r}})
	w := readWACZ(t, b)
	dp := checkPackage(t, a, w)
	got, _ := json.Marshal(dp["archivectl"])
	const want = `{"counts":{"excluded":2,"excluded_by_reason":{"exclude-usage train-ai=n":1,"revisit-original-not-exported":1},"kept":4,"released":6},"filter":{"exclude_usage":["train-ai=n"],"require_usage":[]}}`
	if string(got) != want {
		t.Errorf("datapackage.json archivectl:\n%s\nwant\n%s", got, want)
	}
	if s.Kept != 4 || s.Excluded != 2 || s.Pages != 2 {
		t.Errorf("summary %+v", s)
	}
	// Each shard lost a capture: each gives a new file of a warcinfo record and the kept
	// captures' members, byte for byte.
	for i, kept := range [][]string{{"/style.css", "/news/a", "/news/b"}, {"/missing"}} {
		shard, _ := os.ReadFile(a.dir + "/" + a.shards[i])
		var want []byte
		for _, p := range kept {
			for _, m := range a.members[a.ids["http://example.com"+p]] {
				want = append(want, shard[m.Offset:m.Offset+m.Length]...)
			}
		}
		name := "archive/" + strings.TrimSuffix(a.shards[i][len("shards/"):], ".warc.gz") + "-selected.warc.gz"
		got, ok := w.files[name]
		if !ok {
			t.Fatalf("no %s in %q", name, w.names)
		}
		zr, err := gzip.NewReader(bytes.NewReader(got))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		h, err := warcrecord.ReadHeader(bufio.NewReader(zr))
		if err != nil || h.Get("WARC-Type") != "warcinfo" || h.Get("WARC-Filename") != name[len("archive/"):] || h.Get("WARC-Payload-Digest") != "" {
			t.Errorf("%s starts with %v (%v), want its own warcinfo record without a payload digest", name, h, err)
		}
		if !bytes.HasSuffix(got, want) || len(got)-len(want) > 1024 {
			t.Errorf("%s does not end with the kept captures' members", name)
		}
	}
	if strings.Contains(string(w.files["indexes/index.cdxj"]), "example.com/\"") || strings.Contains(string(w.files["pages/pages.jsonl"]), "/again") {
		t.Error("an excluded capture is in the index or the pages")
	}
}

func TestWriteWACZNothingSelected(t *testing.T) {
	t.Parallel()
	a := standardFixture(t)
	sel, err := Select(context.Background(), a.fsys, Filter{URLPrefix: "http://nowhere.example/"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := WriteWACZ(context.Background(), &b, a.fsys, sel, WACZOptions{Created: created}); err == nil || !strings.Contains(err.Error(), "nothing to export") {
		t.Errorf("WriteWACZ of nothing: %v", err)
	}
}
