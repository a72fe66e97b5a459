package main

import (
	"archive/zip"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/archivectl/archivectl/cmd/archivectl/demoweb"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
)

// TestExport drives archivectl export over the demo web, crawled and then released at now and
// at now + 91 days: the WACZ replays in wabac (export_replay_test.go), the usage filters leave out
// what the public CDXJ says they must and record it, the standard index has the CDXJ
// specification's keys and SHA-1 digests, bad filters are exit 2 with one line, and warcio.js
// and js-wacz index the export's and serve's per-page packages' WARC files as we do.
func TestExport(t *testing.T) {
	exe := archivectlBinary(t)
	data := exportDemoArchive(t, exe)
	released := releasedLines(t, data)
	t.Run("wacz replays in wabac", func(t *testing.T) { testExportReplay(t, exe, data, released) })
	t.Run("usage-gated", func(t *testing.T) { testExportUsage(t, exe, data, released) })
	t.Run("standard cdx", func(t *testing.T) { testExportCDX(t, exe, data, released) })
	t.Run("bad usage", func(t *testing.T) { testExportBadUsage(t, exe, data) })
	t.Run("warcio index agrees", func(t *testing.T) { testWarcioIndex(t, data) })
	t.Run("js-wacz agrees", func(t *testing.T) { testJSWACZ(t, exe, data) })
}

// exportDemoArchive crawls the demo web into a data directory and releases it at now and at
// now + 91 days, when every capture is due.
func exportDemoArchive(t *testing.T, exe string) string {
	t.Helper()
	site, err := demoweb.StartWith(demoweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	seeds := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seeds, []byte(strings.Join(site.Seeds(), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, exe, "crawl", "--data", data, "--delay", "0s", seeds)
	now := time.Now().UTC().Truncate(time.Second).Add(time.Second)
	for _, days := range []int{0, 91} {
		mustRun(t, exe, "release", "--data", data, "--now", now.Add(time.Duration(days)*24*time.Hour).Format(time.RFC3339))
	}
	return data
}

// releasedLines are the public CDXJ lines of the released captures, by capture id.
func releasedLines(t *testing.T, data string) map[string]public.Line {
	t.Helper()
	lines, err := publicLines(filepath.Join(data, "public"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]public.Line{}
	for _, l := range lines {
		if l.State == public.StateReleased {
			out[l.ID] = l
		}
	}
	if len(out) < 30 {
		t.Fatalf("only %d released captures in the demo archive", len(out))
	}
	return out
}

// payload is a released response's HTTP payload as gowarc reads it from the public shards.
type payload struct {
	sha256, sha1 string // hex; base32
	length       int
}

// shardPayloads reads every response record of the public shards with gowarc: record id → payload.
func shardPayloads(t *testing.T, data string) map[string]payload {
	t.Helper()
	shards, _ := filepath.Glob(filepath.Join(data, "public", "shards", "*.warc.gz"))
	out := map[string]payload{}
	for _, name := range shards {
		r, err := gowarc.NewWarcFileReader(name, 0)
		if err != nil {
			t.Fatal(err)
		}
		for rec, err := range r.Records() {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if rec.WarcRecord.Type() == gowarc.Response {
				pb, ok := rec.WarcRecord.Block().(gowarc.PayloadBlock)
				if !ok {
					t.Fatalf("%s: a response without a payload block", name)
				}
				pr, err := pb.PayloadBytes()
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(pr)
				if err != nil {
					t.Fatal(err)
				}
				s2, s1 := sha256.Sum256(b), sha1.Sum(b)
				out[rec.WarcRecord.WarcHeader().Get(gowarc.WarcRecordID)] = payload{hex.EncodeToString(s2[:]), base32.StdEncoding.EncodeToString(s1[:]), len(b)}
			}
			rec.WarcRecord.Close()
		}
		r.Close()
	}
	return out
}

// readPackage reads a WACZ file: entry name → contents. It checks datapackage.json's hash and
// size of every other file, datapackage-digest.json, and that the WARCs are stored uncompressed.
func readPackage(t *testing.T, path string) (files map[string][]byte, dp waczDataPackage) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files = map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s in %s: %v", f.Name, path, err)
		}
		files[f.Name] = b
		if strings.HasPrefix(f.Name, "archive/") && f.Method != zip.Store {
			t.Errorf("%s in %s is compressed", f.Name, path)
		}
	}
	if err := json.Unmarshal(files["datapackage.json"], &dp); err != nil {
		t.Fatalf("datapackage.json: %v", err)
	}
	if dp.Profile != "data-package" || dp.WACZVersion != "1.1.1" {
		t.Errorf("datapackage.json: profile %q, wacz_version %q", dp.Profile, dp.WACZVersion)
	}
	listed := map[string]bool{"datapackage.json": true, "datapackage-digest.json": true}
	for _, r := range dp.Resources {
		sum := sha256.Sum256(files[r.Path])
		if r.Hash != "sha256:"+hex.EncodeToString(sum[:]) || r.Bytes != int64(len(files[r.Path])) {
			t.Errorf("datapackage.json: %s: %s, %d bytes; the file is sha256:%x, %d bytes", r.Path, r.Hash, r.Bytes, sum, len(files[r.Path]))
		}
		listed[r.Path] = true
	}
	for name := range files {
		if !listed[name] {
			t.Errorf("%s is in the package but not in datapackage.json", name)
		}
	}
	sum := sha256.Sum256(files["datapackage.json"])
	if !strings.Contains(string(files["datapackage-digest.json"]), `"sha256:`+hex.EncodeToString(sum[:])+`"`) {
		t.Errorf("datapackage-digest.json %s does not hold datapackage.json's hash", files["datapackage-digest.json"])
	}
	return files, dp
}

// waczDataPackage is what the tests read of datapackage.json.
type waczDataPackage struct {
	Profile     string `json:"profile"`
	WACZVersion string `json:"wacz_version"`
	Resources   []struct {
		Path, Hash string
		Bytes      int64
	} `json:"resources"`
	Archivectl struct {
		Filter struct {
			ExcludeUsage []string `json:"exclude_usage"`
			RequireUsage []string `json:"require_usage"`
		} `json:"filter"`
		Counts struct {
			Released, Kept, Excluded int
			ByReason                 map[string]int `json:"excluded_by_reason"`
		} `json:"counts"`
	} `json:"archivectl"`
}

// indexURLs are the urls of a CDXJ index's lines.
func indexURLs(t *testing.T, index []byte) []string {
	t.Helper()
	var urls []string
	for _, line := range strings.Split(strings.TrimSpace(string(index)), "\n") {
		var b struct{ URL string }
		if _, js, ok := strings.Cut(line[strings.IndexByte(line, ' ')+1:], " "); !ok || json.Unmarshal([]byte(js), &b) != nil {
			t.Fatalf("index line %q", line)
		}
		urls = append(urls, b.URL)
	}
	slices.Sort(urls)
	return urls
}

func testExportUsage(t *testing.T, exe, data string, released map[string]public.Line) {
	tests := []struct {
		flag, rule string
		excluded   func(v string) bool // the capture's combined train-ai value: y, n or ""
	}{
		{"--exclude-usage", "train-ai=n", func(v string) bool { return v == "n" }},
		{"--require-usage", "train-ai=y", func(v string) bool { return v != "y" }},
	}
	for _, tc := range tests {
		t.Run(tc.flag+" "+tc.rule, func(t *testing.T) {
			// The expectation, from the public CDXJ's usage key alone.
			var kept []string
			out := 0
			for _, l := range released {
				v := ""
				for _, u := range l.Usage {
					if val, ok := strings.CutPrefix(u, "train-ai="); ok {
						v = val
					}
				}
				if tc.excluded(v) {
					out++
				} else {
					kept = append(kept, l.URL)
				}
			}
			slices.Sort(kept)
			if out == 0 || len(kept) == 0 {
				t.Fatalf("the demo has %d captures to keep and %d to leave out: the test cannot tell", len(kept), out)
			}
			wacz := filepath.Join(t.TempDir(), "gated.wacz")
			stdout := string(mustRun(t, exe, "export", "--data", data, "--wacz", wacz, tc.flag, tc.rule))
			reason := strings.TrimPrefix(tc.flag, "--") + " " + tc.rule
			if !strings.Contains(stdout, "left out, "+reason+": "+strconv.Itoa(out)+"\n") {
				t.Errorf("the command does not report %d left out for %s:\n%s", out, reason, stdout)
			}
			files, dp := readPackage(t, wacz)
			c := dp.Archivectl.Counts
			wantReasons := map[string]int{reason: out, "revisit-original-not-exported": 0}
			if c.Released != len(released) || c.Kept != len(kept) || c.Excluded != out || !maps.Equal(c.ByReason, wantReasons) {
				t.Errorf("datapackage.json counts %+v; want %d released, %d kept, %v", c, len(released), len(kept), wantReasons)
			}
			f := dp.Archivectl.Filter
			if got := slices.Concat(f.ExcludeUsage, f.RequireUsage); !slices.Equal(got, []string{tc.rule}) ||
				(tc.flag == "--exclude-usage") != (len(f.ExcludeUsage) == 1) {
				t.Errorf("datapackage.json filter %+v, want %s %s", f, tc.flag, tc.rule)
			}
			if got := indexURLs(t, files["indexes/index.cdxj"]); !slices.Equal(got, kept) {
				t.Errorf("the index holds %q,\nwant %q", got, kept)
			}
			// The standard index takes the same filter.
			cdx, stderr, code := runBinary(t, exe, "export", "--data", data, "--cdx", "-", tc.flag, tc.rule)
			if got := strings.Count(cdx, "\n"); code != 0 || got != len(kept) {
				t.Errorf("--cdx - with %s %s: exit %d, %d lines, want %d\n%s", tc.flag, tc.rule, code, got, len(kept), stderr)
			}
		})
	}
}

func testExportCDX(t *testing.T, exe, data string, released map[string]public.Line) {
	stdout, stderr, code := runBinary(t, exe, "export", "--data", data, "--cdx", "-")
	if code != 0 {
		t.Fatalf("export --cdx -: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "index lines") {
		t.Errorf("the report is not on standard error: %q", stderr)
	}
	file := filepath.Join(t.TempDir(), "index.cdxj")
	mustRun(t, exe, "export", "--data", data, "--cdx", file)
	if b, _ := os.ReadFile(file); string(b) != stdout {
		t.Error("--cdx FILE and --cdx - differ")
	}
	payloads := shardPayloads(t, data)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(released) || !slices.IsSorted(lines) {
		t.Fatalf("%d lines (sorted %v), want %d released captures", len(lines), slices.IsSorted(lines), len(released))
	}
	spec := []string{"digest", "filename", "length", "mime", "offset", "status", "url"} // specs.webrecorder.net/cdxj/0.1.0
	byPlace := map[string]public.Line{}
	for _, l := range released {
		byPlace[filepath.Base(l.Filename)+" "+strconv.FormatInt(l.Offset, 10)] = l
	}
	for _, line := range lines {
		key, rest, _ := strings.Cut(line, " ")
		ts, js, _ := strings.Cut(rest, " ")
		var block map[string]any
		if err := json.Unmarshal([]byte(js), &block); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if keys := slices.Sorted(maps.Keys(block)); !slices.Equal(keys, spec) {
			t.Errorf("%q: keys %q, want exactly the CDXJ specification's %q", line, keys, spec)
		}
		str := map[string]string{}
		for k, v := range block {
			if s, ok := v.(string); ok {
				str[k] = s
			} else {
				t.Errorf("%q: %s is a JSON %T; pywb's indexer writes strings", line, k, v)
			}
		}
		l, ok := byPlace[str["filename"]+" "+str["offset"]]
		switch {
		case !ok:
			t.Errorf("%q: no released capture at %s %s", line, str["filename"], str["offset"])
			continue
		case !regexp.MustCompile(`^\d{14}$`).MatchString(ts) || ts != l.Timestamp:
			t.Errorf("%q: timestamp %q, want %q", line, ts, l.Timestamp)
		}
		if want, _ := surt.Key(l.URL); key != want {
			t.Errorf("%q: key %q, want surt.Key %q", line, key, want)
		}
		if str["url"] != l.URL || str["mime"] != l.Mime || str["status"] != strconv.Itoa(l.Status) || str["length"] != strconv.FormatInt(l.Length, 10) {
			t.Errorf("%q: does not describe capture %+v", line, l)
		}
		if p := payloads[l.ID]; !regexp.MustCompile(`^[A-Z2-7]{32}$`).MatchString(str["digest"]) || str["digest"] != p.sha1 {
			t.Errorf("%q: digest %q, want the payload's SHA-1 in base32 without a label, %q", line, str["digest"], p.sha1)
		}
		if _, err := os.Stat(filepath.Join(data, "public", "shards", str["filename"])); err != nil {
			t.Errorf("%q: filename is not a public shard's name: %v", line, err)
		}
	}
}

func testExportBadUsage(t *testing.T, exe, data string) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--wacz", "x.wacz", "--exclude-usage", "Train-AI=n"}, "lowercase"},
		{[]string{"--wacz", "x.wacz", "--exclude-usage", "train-ai"}, "is not CATEGORY=y or CATEGORY=n"},
		{[]string{"--wacz", "x.wacz", "--require-usage", "train-genai=y"}, `unknown category "train-genai"`},
		{[]string{"--cdx", "-", "--exclude-usage", "train-ai=maybe"}, "must be y or n"},
		{[]string{"--cdx", "-", "--exclude-usage", "train-ai=n", "--require-usage", "TRAIN-AI=y"}, "--require-usage"},
		{[]string{"--cdx", "-", "--from", "yesterday"}, "--from"},
		{[]string{"--cdx", "-", "--from", "2026-03-02", "--to", "2026-03-01"}, "not before"},
		{[]string{"--cdx", "-", "--url-prefix", "ftp://example.com/"}, "--url-prefix"},
		{[]string{"--exclude-usage", "train-ai=n"}, "--wacz FILE and/or --cdx FILE"},
		{[]string{"--wacz", "-"}, "zip file"},
		{[]string{"--cdx", "-", "extra"}, "unexpected argument"},
	}
	for _, tc := range tests {
		stdout, stderr, code := runBinary(t, exe, append([]string{"export", "--data", data}, tc.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("export %q: exit %d, stdout %q, stderr %q; want exit 2 and one line saying %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	missing := filepath.Join(t.TempDir(), "nosuchdir")
	for _, flag := range []string{"--cdx", "--wacz"} {
		_, stderr, code := runBinary(t, exe, "export", "--data", data, flag, filepath.Join(missing, "x"))
		if code != 1 || !strings.Contains(stderr, "directory "+missing) || strings.Contains(stderr, ".tmp") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("export %s into a missing directory: exit %d, %q; want exit 1 and one line naming the directory", flag, code, stderr)
		}
	}
	_, stderr, code := runBinary(t, exe, "export", "--data", t.TempDir(), "--cdx", "-")
	if code != 1 || !strings.Contains(stderr, "run archivectl release first") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("export of a data directory without public/: exit %d, %q", code, stderr)
	}
}
