package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// jsPage is one line of a pages.jsonl.
type jsPage struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// waczIndex reads a package's index (CDXJ, the standard keys as strings) and pages, the index by
// filename@offset.
func waczIndex(t *testing.T, files map[string][]byte, index string) (map[string]warcioLine, []jsPage) {
	t.Helper()
	lines := map[string]warcioLine{}
	for _, raw := range bytes.Split(bytes.TrimSpace(files[index]), []byte("\n")) {
		key, rest, _ := bytes.Cut(raw, []byte(" "))
		ts, js, _ := bytes.Cut(rest, []byte(" "))
		var w warcioLine
		if err := json.Unmarshal(js, &w); err != nil {
			t.Fatalf("%s line %q: %v", index, raw, err)
		}
		w.key, w.timestamp = string(key), string(ts)
		at := w.Filename + "@" + w.Offset
		if _, dup := lines[at]; dup {
			t.Errorf("%s lists %s twice", index, at)
		}
		lines[at] = w
	}
	var pages []jsPage
	for i, raw := range bytes.Split(bytes.TrimSpace(files["pages/pages.jsonl"]), []byte("\n")) {
		var p jsPage
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("pages.jsonl line %q: %v", raw, err)
		}
		if i > 0 { // the header line
			p.Title = strings.Join(strings.Fields(p.Title), " ")
			pages = append(pages, p)
		}
	}
	slices.SortFunc(pages, func(a, b jsPage) int { return strings.Compare(a.URL+" "+a.Title, b.URL+" "+b.Title) })
	return lines, pages
}

// checkJSWACZ packs the WARC files of our package (its archive/ directory, as they are) with
// js-wacz, and compares: js-wacz indexes the records our index lists and no other, agreeing on
// url, mime, status, digest (ours labelled sha256:), length, offset and filename; and the pages it
// detects (200 text/html responses) are ours, with the same titles. Ours may list more pages: a
// revisit of a page, another 2xx status, application/xhtml+xml.
func checkJSWACZ(t *testing.T, engines string, ours map[string][]byte) (records, pages int) {
	t.Helper()
	dir := t.TempDir()
	var warcs []string
	for name, b := range ours {
		if base, ok := strings.CutPrefix(name, "archive/"); ok {
			p := filepath.Join(dir, base)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			warcs = append(warcs, p)
		}
	}
	sort.Strings(warcs)
	out := filepath.Join(dir, "js-wacz.wacz")
	cmd := exec.Command("node", append([]string{filepath.Join("..", "..", "test", "replay", "wacz.mjs"), out}, warcs...)...)
	cmd.Env = append(os.Environ(), "ARCHIVECTL_REPLAY_NODE_DIR="+engines)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wacz.mjs: %v\n%s", err, msg)
	}
	theirs := unzipAll(t, out) // not readPackage: js-wacz 0.1.6's datapackage.json hashes are wrong (test/replay/README.md)
	oursIx, oursPages := waczIndex(t, ours, "indexes/index.cdxj")
	jsIx, jsPages := waczIndex(t, theirs, "indexes/index.cdx")
	for at, o := range oursIx {
		j, ok := jsIx[at]
		if !ok {
			t.Errorf("%s (%s): js-wacz indexes no record there", at, o.URL)
			continue
		}
		want := fmt.Sprintf("%q", []string{o.URL, o.Mime, o.Status, strings.TrimPrefix(o.Digest, "sha256:"), o.Length, o.Offset, o.Filename})
		have := fmt.Sprintf("%q", []string{j.URL, j.Mime, j.Status, j.Digest, j.Length, j.Offset, j.Filename})
		if want != have {
			t.Errorf("%s: ours %s\n  js-wacz %s", at, want, have)
		}
	}
	for at, j := range jsIx {
		if _, ok := oursIx[at]; !ok {
			t.Errorf("js-wacz indexes a record our index does not list: %s %+v", at, j)
		}
	}
	for _, p := range jsPages {
		if !slices.Contains(oursPages, p) {
			t.Errorf("js-wacz detects the page %+v, which our pages.jsonl lacks (ours: %+v)", p, oursPages)
		}
	}
	for _, o := range oursIx {
		if o.Status == "200" && o.Mime == "text/html" && !slices.ContainsFunc(jsPages, func(p jsPage) bool { return p.URL == o.URL }) {
			t.Errorf("our page %s is no page to js-wacz", o.URL)
		}
	}
	return len(jsIx), len(jsPages)
}

// testJSWACZ compares the demo's WACZ export, and the per-page packages archivectl serve builds of
// some of its pages, with what js-wacz makes of the same WARC files (checkJSWACZ).
func testJSWACZ(t *testing.T, exe, data string) {
	engines := replayEngines(t)
	wacz := filepath.Join(t.TempDir(), "demo.wacz")
	mustRun(t, exe, "export", "--data", data, "--wacz", wacz)
	files, _ := readPackage(t, wacz)
	records, pages := checkJSWACZ(t, engines, files)
	if records < 30 || pages < 10 {
		t.Errorf("js-wacz indexed %d records and found %d pages in the export; the demo has more", records, pages)
	}
	t.Logf("the export: js-wacz indexes the same %d records and finds %d of its pages", records, pages)

	s := startServe(t, exe, "--data", data)
	defer s.stop(t, os.Interrupt)
	_, oursPages := waczIndex(t, files, "indexes/index.cdxj")
	checked := 0
	for _, p := range oursPages {
		if checked == 3 {
			break
		}
		code, body := s.get(t, "/api/v1/wacz?url="+url.QueryEscape(p.URL), nil)
		if code != 200 {
			t.Fatalf("/api/v1/wacz?url=%s: %d %.300s", p.URL, code, body)
		}
		path := filepath.Join(t.TempDir(), "page.wacz")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		page, _ := readPackage(t, path)
		records, pages := checkJSWACZ(t, engines, page)
		if records < 1 || pages > 1 {
			t.Errorf("%s: js-wacz indexes %d records and finds %d pages in its package", p.URL, records, pages)
		}
		checked++
		t.Logf("the package of %s: js-wacz indexes the same %d records", p.URL, records)
	}
}

// unzipAll is every file of a zip file, by name.
func unzipAll(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc) // checks the CRC
		rc.Close()
		if err != nil {
			t.Fatalf("%s in %s: %v", f.Name, path, err)
		}
		files[f.Name] = b
	}
	return files
}
