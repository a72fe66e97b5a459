package lookup

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/public"
)

// pageWACZ is a page's package read back: its index lines, its WARC files' bytes, pages.jsonl and
// datapackage.json.
type pageWACZ struct {
	index      []map[string]string
	indexLines []string
	warcs      map[string][]byte
	pages      []map[string]any
	dp         map[string]any
	raw        []byte
	contains   func(b []byte) bool // whether any archive/ file holds b once ungzipped
}

func readPageWACZ(t *testing.T, b []byte) *pageWACZ {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip file: %v", err)
	}
	p := &pageWACZ{warcs: map[string][]byte{}, raw: b}
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
		switch {
		case strings.HasPrefix(f.Name, "archive/"):
			if f.Method != zip.Store {
				t.Errorf("%s is compressed; WARC files are stored", f.Name)
			}
			p.warcs[strings.TrimPrefix(f.Name, "archive/")] = data
		case f.Name == "indexes/index.cdxj":
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				_, js, _ := strings.Cut(line[strings.IndexByte(line, ' ')+1:], " ")
				m := map[string]string{}
				if err := json.Unmarshal([]byte(js), &m); err != nil {
					t.Fatalf("index line %q: %v", line, err)
				}
				p.index, p.indexLines = append(p.index, m), append(p.indexLines, line)
			}
		case f.Name == "pages/pages.jsonl":
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
				m := map[string]any{}
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatal(err)
				}
				p.pages = append(p.pages, m)
			}
		case f.Name == "datapackage.json":
			if err := json.Unmarshal(data, &p.dp); err != nil {
				t.Fatal(err)
			}
		}
	}
	p.contains = func(needle []byte) bool {
		for _, w := range p.warcs {
			if bytes.Contains(testkit.Gunzip(t, w), needle) {
				return true
			}
		}
		return false
	}
	return p
}

// urls are the URLs the package's index lists, sorted.
func (p *pageWACZ) urls() []string {
	var out []string
	for _, l := range p.index {
		out = append(out, l["url"])
	}
	slices.Sort(out)
	return out
}

// TestPageWACZ asks for the package of a crawled and released page: it holds the page, its
// stylesheet, the image the stylesheet embeds and its logo, each index line pointing at its
// record; never the photo under embargo (no line, no byte of it) nor the linked page; its
// datapackage.json counts the photo as a requisite under embargo. Range requests (a suffix range
// as wabac.js reads the central directory) get the same bytes, HEAD the size; the photo's own
// package is 451, as its record is.
func TestPageWACZ(t *testing.T) {
	t.Parallel()
	rs := newReplaySite(t)
	s := rs.server(t, Options{})
	target := "/api/v1/wacz?url=" + url.QueryEscape(rs.home)
	rec := get(t, s, target)
	if rec.Code != http.StatusOK || rec.Header().Get("Accept-Ranges") != "bytes" || rec.Header().Get("Content-Type") != "application/wacz" {
		t.Fatalf("GET %s: %d %v\n%s", target, rec.Code, rec.Header(), rec.Body)
	}
	body := rec.Body.Bytes()
	if cl := rec.Header().Get("Content-Length"); cl != itoa(len(body)) {
		t.Errorf("Content-Length %s, body %d bytes", cl, len(body))
	}
	p := readPageWACZ(t, body)
	want := []string{rs.home, rs.bg, rs.logo, rs.sheet}
	slices.Sort(want)
	if got := p.urls(); !slices.Equal(got, want) {
		t.Errorf("index lists %v, want %v", got, want)
	}
	for _, l := range p.index {
		w, ok := p.warcs[l["filename"]]
		off, length := atoi(t, l["offset"]), atoi(t, l["length"])
		if !ok || off+length > len(w) {
			t.Fatalf("index line %v points outside the package's files", l)
		}
		rec := testkit.Gunzip(t, w[off:off+length])
		if !bytes.Contains(rec, []byte("WARC-Target-URI: "+l["url"]+"\r\n")) {
			t.Errorf("the record at %s %s is not of %s", l["filename"], l["offset"], l["url"])
		}
	}
	if p.contains(rs.photoPNG) || bytes.Contains(body, []byte(rs.photo)) {
		t.Error("the package holds the embargoed photo (its bytes or its URL)")
	}
	if p.contains([]byte("About the harbour")) {
		t.Error("the package holds the linked page")
	}
	if len(p.pages) != 1 || p.pages[0]["url"] != rs.home || p.pages[0]["title"] != "Harbour test page" {
		t.Errorf("pages.jsonl: %v, want the home page alone, titled", p.pages)
	}
	info, _ := p.dp["archivectl"].(map[string]any)
	page, _ := info["page"].(map[string]any)
	if page["url"] != rs.home || page["requisites"] != 3.0 || page["embargoed_requisites"] != 1.0 {
		t.Errorf("datapackage.json archivectl: %v", info)
	}
	if rec.Header().Get("X-Archive-Embargoed-Requisites") != "1" {
		t.Errorf("X-Archive-Embargoed-Requisites %q, want 1", rec.Header().Get("X-Archive-Embargoed-Requisites"))
	}

	again := get(t, s, target)
	if !bytes.Equal(again.Body.Bytes(), body) || again.Header().Get("ETag") != rec.Header().Get("ETag") || rec.Header().Get("ETag") == "" {
		t.Error("a second request answers other bytes or another ETag")
	}
	for _, rg := range []struct {
		header     string
		start, end int
	}{{"bytes=-100", len(body) - 100, len(body)}, {"bytes=0-3", 0, 4}, {"bytes=200-999", 200, 1000}} {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Range", rg.header)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusPartialContent || !bytes.Equal(w.Body.Bytes(), body[rg.start:rg.end]) {
			t.Errorf("Range %s: %d, %d bytes; want 206 and bytes %d-%d", rg.header, w.Code, w.Body.Len(), rg.start, rg.end-1)
		}
	}
	head := httptest.NewRecorder()
	s.ServeHTTP(head, httptest.NewRequest(http.MethodHead, target, nil))
	if head.Code != http.StatusOK || head.Header().Get("Content-Length") != itoa(len(body)) || head.Body.Len() != 0 {
		t.Errorf("HEAD: %d Content-Length %q body %d", head.Code, head.Header().Get("Content-Length"), head.Body.Len())
	}
	if rec := get(t, s, "/api/v1/wacz?url="+url.QueryEscape(rs.photo)); rec.Code != http.StatusUnavailableForLegalReasons {
		t.Errorf("the embargoed photo's package: %d, want 451", rec.Code)
	}
	for _, tc := range []struct {
		target string
		code   int
	}{
		{"/api/v1/wacz", http.StatusBadRequest},
		{"/api/v1/wacz?url=" + url.QueryEscape(rs.home) + "&timestamp=1999", http.StatusBadRequest},
		{"/api/v1/wacz?url=" + url.QueryEscape(rs.home) + "&timestamp=19990101000000", http.StatusNotFound},
		{"/api/v1/wacz?url=https://never.example/", http.StatusNotFound},
	} {
		if rec := get(t, s, tc.target); rec.Code != tc.code {
			t.Errorf("%s: %d, want %d", tc.target, rec.Code, tc.code)
		}
	}
}

// TestReplayLinks checks the cards: a released HTML page gets "Open as page", into ReplayWeb.page
// (the public instance, or the one configured) with its package's absolute URL as the source and
// the raw record beside it, and says that its photo is still under embargo and until when;
// a resource gets no such link, and with ReplayURL off no card has one.
func TestReplayLinks(t *testing.T) {
	t.Parallel()
	rs := newReplaySite(t)
	link := regexp.MustCompile(`<a class="replay" href="([^"]+)">Open as page</a>`)
	for _, tc := range []struct {
		replay, want string
	}{{"", DefaultReplayURL}, {"https://replay.example.org/rwp/", "https://replay.example.org/rwp/"}, {ReplayOff, ""}} {
		s := rs.server(t, Options{ReplayURL: tc.replay})
		req := httptest.NewRequest(http.MethodGet, "/?url="+url.QueryEscape(rs.home), nil)
		req.Host = "archive.example.net"
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		page := w.Body.String()
		m := link.FindStringSubmatch(page)
		if tc.want == "" {
			if m != nil || strings.Contains(page, "still under embargo until") {
				t.Errorf("replay off: the card has %q", m)
			}
			continue
		}
		if m == nil {
			t.Fatalf("replay %q: no Open as page link in\n%s", tc.replay, page)
		}
		u, err := url.Parse(html.UnescapeString(m[1]))
		if err != nil || !strings.HasPrefix(u.String(), tc.want+"?") {
			t.Fatalf("replay link %q, want one into %s", m[1], tc.want)
		}
		frag, _ := url.ParseQuery(u.Fragment)
		src, _ := url.Parse(u.Query().Get("source"))
		if src == nil || src.Scheme != "http" || src.Host != "archive.example.net" || src.Path != "/api/v1/wacz" ||
			src.Query().Get("url") != rs.home || len(src.Query().Get("timestamp")) != 14 ||
			frag.Get("url") != rs.home || frag.Get("ts") != src.Query().Get("timestamp") || frag.Get("view") != "replay" {
			t.Errorf("replay link %s: source %v, fragment %v", u, src, frag)
		}
		if !strings.Contains(page, `WARC record</a>`) {
			t.Error("the raw record link is gone")
		}
		var until string
		for _, l := range publicLinesOf(t, rs.public) {
			if l.URL == rs.photo {
				until = l.ReleaseAt
			}
		}
		if want := "1 resource of this page is still under embargo until <time datetime=\"" + until[:19] + "Z\">"; until == "" || !strings.Contains(page, want) {
			t.Errorf("the card lacks %q", want)
		}
		if res := get(t, s, "/?url="+url.QueryEscape(rs.logo)).Body.String(); link.MatchString(res) {
			t.Error("the logo's card has an Open as page link")
		}
	}
	if _, err := Open(rs.public, Options{ReplayURL: "javascript:alert(1)"}); err == nil {
		t.Error("a replay URL that is not http(s) is accepted")
	}
}

// publicLinesOf reads every public CDXJ line of dir.
func publicLinesOf(t *testing.T, dir string) []public.Line {
	t.Helper()
	fsys := &rootFS{dir: dir}
	names, err := public.CDXJFiles(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var out []public.Line
	for _, n := range names {
		if err := public.ReadCDXJ(fsys, n, func(l public.Line) error { out = append(out, l); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}

// BenchmarkPageWACZ measures a page's package over the crawled site: laid out afresh (the page's
// metadata record, its outlinks looked up, its records read once for their CRC and SHA-256), and
// a range of one laid out already, as the later requests of a replay are.
func BenchmarkPageWACZ(b *testing.B) {
	rs := newReplaySite(b)
	s, err := Open(rs.public, Options{Logger: discard})
	if err != nil {
		b.Fatal(err)
	}
	target := "/api/v1/wacz?url=" + url.QueryEscape(rs.home)
	b.Run("laid out", func(b *testing.B) {
		for b.Loop() {
			s.pages = pageCache{}
			if w := httptestDo(s, http.MethodGet, target); w.Code != http.StatusOK {
				b.Fatal(w.Code)
			}
		}
	})
	b.Run("cached range", func(b *testing.B) {
		for b.Loop() {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			req.Header.Set("Range", "bytes=-4096")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			if w.Code != http.StatusPartialContent {
				b.Fatal(w.Code)
			}
		}
	})
}

// TestPageWACZRevisits packs the second crawl of the site, where the page and each of its
// resources is a revisit: the package holds every revisit with its original, and wabac.js (the
// engine of ReplayWeb.page, test/replay/replay.mjs) replays each of them from it at the revisit's
// time with the original payload.
func TestPageWACZRevisits(t *testing.T) {
	t.Parallel()
	rs := crawlReplaySite(t, 2)
	s := rs.server(t, Options{})
	rec := get(t, s, "/api/v1/wacz?url="+url.QueryEscape(rs.home))
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	p := readPageWACZ(t, rec.Body.Bytes())
	revisits := map[string]map[string]string{} // url → its revisit line
	originals := map[string]string{}           // url → the digest of its original's line
	for _, l := range p.index {
		if l["mime"] == "warc/revisit" {
			revisits[l["url"]] = l
		} else {
			originals[l["url"]] = l["digest"]
		}
	}
	for _, u := range []string{rs.home, rs.sheet, rs.logo, rs.bg} {
		if revisits[u] == nil || originals[u] == "" || revisits[u]["digest"] != originals[u] {
			t.Errorf("%s: revisit %v, original's digest %q: want both, the same payload", u, revisits[u], originals[u])
		}
	}
	if len(p.index) != 8 || len(p.pages) != 1 || p.dp["archivectl"].(map[string]any)["page"].(map[string]any)["embargoed_requisites"] != 1.0 {
		t.Errorf("%d index lines, pages %v, %v; want 8 (4 revisits, 4 originals), the page, 1 under embargo", len(p.index), p.pages, p.dp["archivectl"])
	}

	engines := nodeDir(t, "ARCHIVECTL_REPLAY_NODE_DIR", "test/replay/install.sh", "the replay engines are not installed", "to replay the package in wabac.js")
	dir := t.TempDir()
	pkg, list := filepath.Join(dir, "page.wacz"), filepath.Join(dir, "urls.txt")
	var want []string
	var lines strings.Builder
	for _, u := range []string{rs.home, rs.sheet, rs.logo, rs.bg} {
		key := strings.Fields(revisitKey(p, u))
		if len(key) == 0 {
			t.Fatalf("the package has no revisit of %s", u)
		}
		fmt.Fprintf(&lines, "%s %s\n", key[0], u)
		want = append(want, strings.TrimPrefix(originals[u], "sha256:"))
	}
	if err := os.WriteFile(pkg, rec.Body.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("..", "test", "replay", "replay.mjs"), pkg, list)
	cmd.Env = append(os.Environ(), "ARCHIVECTL_REPLAY_NODE_DIR="+engines)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("replay.mjs: %v\n%s", err, stderr.String())
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(got) != len(want) {
		t.Fatalf("replay.mjs answered %d lines for %d requests:\n%s", len(got), len(want), out)
	}
	for i, line := range got {
		var r struct {
			URL      string `json:"url"`
			Status   int    `json:"status"`
			SHA256   string `json:"sha256"`
			Archived bool   `json:"archived"`
			TS       string `json:"ts"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if !r.Archived || r.Status != 200 || r.SHA256 != want[i] {
			t.Errorf("wabac.js replays %s as %+v; want the original's payload %s", r.URL, r, want[i])
		}
	}
}

// revisitKey is the key and timestamp of the package's index line of u's revisit.
func revisitKey(p *pageWACZ, u string) string {
	for _, l := range p.indexLines {
		if strings.Contains(l, `"url":"`+u+`"`) && strings.Contains(l, `"mime":"warc/revisit"`) {
			_, rest, _ := strings.Cut(l, " ")
			return rest
		}
	}
	return ""
}
