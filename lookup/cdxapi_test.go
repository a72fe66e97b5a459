package lookup

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/bench/lookup/synth"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
)

// cdxFixture is a public side for the CDX API and Memento tests: released captures over
// several hosts and years (the shapes of the pywb and Wayback CDX server documentation's
// examples: a host with subdomains, a neighbour host sharing its prefix, a path and its
// sibling), a revisit, and tombstones (one URL embargoed only).
func cdxFixture(t testing.TB) *fixture {
	f := newFixture(t)
	n := 0
	rel := func(u, at, mime string, status int, digest string) {
		n++
		tm, err := time.Parse(public.Timestamp14, at)
		if err != nil {
			t.Fatal(err)
		}
		f.release(public.CDXJ{URL: u, Mime: mime, Status: status, Digest: digest, ID: fmt.Sprintf("<urn:uuid:r%d>", n),
			Time: tm.Format(time.RFC3339), ReleaseAt: tm.Add(7 * 24 * time.Hour).Format(time.RFC3339)}, mime, "body "+u+" "+at)
	}
	rel("https://example.com/", "20140115103000", "text/html", 200, "sha256:0001")
	rel("https://example.com/", "20140601000000", "text/html", 200, "sha256:0001")
	rel("https://example.com/", "20150301120000", "text/html", 200, "sha256:0002")
	rel("https://example.com/", "20160101000000", "text/html", 200, "sha256:0003")
	rel("https://example.com/a.php", "20150505000000", "text/html", 200, "sha256:0010")
	rel("https://example.com/img.png", "20150601000000", "image/png", 200, "sha256:0011")
	rel("https://example.com/missing", "20150701000000", "text/html", 404, "sha256:0012")
	rel("https://example.com/path/", "20160202000000", "text/html", 200, "sha256:0020")
	rel("https://example.com/path/x", "20160203000000", "text/plain", 200, "sha256:0021")
	rel("https://example.com/pathology", "20160204000000", "text/html", 200, "sha256:0022")
	rel("https://sub.example.com/", "20160301000000", "text/html", 200, "sha256:0030")
	rel("https://deep.sub.example.com/x", "20160302000000", "text/html", 200, "sha256:0031")
	rel("https://examples.com/", "20160401000000", "text/html", 200, "sha256:0040")
	rel("https://example.org/", "20160501000000", "text/html", 200, "sha256:0050")
	n++
	f.release(public.CDXJ{URL: "https://example.com/", Mime: "text/html", Status: 200, Digest: "sha256:0003", ID: "<urn:uuid:rv>",
		Time: "2017-01-01T00:00:00Z", ReleaseAt: "2017-01-08T00:00:00Z", Revisit: true, RefersTo: "<urn:uuid:r4>"}, "text/html", "")
	f.tombstone(public.CDXJ{URL: "https://example.com/", Mime: "text/html", Status: 200, Digest: "sha256:0099", ID: "<urn:uuid:e1>",
		Time: "2026-11-20T00:00:00Z", ReleaseAt: "2027-02-18T00:00:00Z"})
	f.tombstone(public.CDXJ{URL: "https://example.com/secret", Mime: "text/html", Status: 200, Digest: "sha256:0098", ID: "<urn:uuid:e2>",
		Time: "2026-11-01T00:00:00Z", ReleaseAt: "2027-01-30T00:00:00Z"})
	f.commit()
	return f
}

// cdxLines asks s for a CDX query and returns its lines (status 200 required).
func cdxLines(t *testing.T, s *Server, query string) []string {
	t.Helper()
	rec := get(t, s, "/cdx?"+query)
	if rec.Code != 200 {
		t.Fatalf("/cdx?%s: status %d: %s", query, rec.Code, rec.Body)
	}
	body := strings.TrimSuffix(rec.Body.String(), "\n")
	if body == "" {
		return nil
	}
	return strings.Split(body, "\n")
}

// Conformance with the examples of pywb's CDX server API documentation and the Wayback CDX
// server's README: match scopes and their wildcard forms, from/to padding, limit and its
// negative form, sort=reverse and sort=closest, filters with ! = ~, fl, collapse.
func TestCDXConformance(t *testing.T) {
	t.Parallel()
	s := cdxFixture(t).server(testNow)
	const fl = "&fl=timestamp,original"
	tests := []struct {
		name, query string
		want        []string
	}{
		{"exact, oldest first", "url=example.com/" + fl, []string{
			"20140115103000 https://example.com/", "20140601000000 https://example.com/", "20150301120000 https://example.com/",
			"20160101000000 https://example.com/", "20170101000000 https://example.com/"}},
		{"exact ignores scheme and www", "url=http://www.example.com/&limit=1" + fl, []string{"20140115103000 https://example.com/"}},
		{"from pads low, to pads high", "url=example.com/&from=2014&to=2014" + fl, []string{
			"20140115103000 https://example.com/", "20140601000000 https://example.com/"}},
		{"from and to are inclusive to the second", "url=example.com/&from=20140601000000&to=20150301120000" + fl, []string{
			"20140601000000 https://example.com/", "20150301120000 https://example.com/"}},
		{"to by month", "url=example.com/&to=201406" + fl, []string{
			"20140115103000 https://example.com/", "20140601000000 https://example.com/"}},
		{"limit", "url=example.com/&limit=2" + fl, []string{
			"20140115103000 https://example.com/", "20140601000000 https://example.com/"}},
		{"negative limit: the last N", "url=example.com/&limit=-2" + fl, []string{
			"20160101000000 https://example.com/", "20170101000000 https://example.com/"}},
		{"reverse", "url=example.com/&sort=reverse&limit=2" + fl, []string{
			"20170101000000 https://example.com/", "20160101000000 https://example.com/"}},
		{"closest", "url=example.com/&sort=closest&closest=20150101&limit=3" + fl, []string{
			"20150301120000 https://example.com/", "20140601000000 https://example.com/", "20140115103000 https://example.com/"}},
		{"prefix by wildcard", "url=example.com/path/*" + fl, []string{
			"20160202000000 https://example.com/path/", "20160203000000 https://example.com/path/x"}},
		{"prefix by matchType", "url=example.com/path/&matchType=prefix" + fl, []string{
			"20160202000000 https://example.com/path/", "20160203000000 https://example.com/path/x"}},
		{"prefix without slash takes siblings", "url=example.com/path*" + fl, []string{
			"20160202000000 https://example.com/path/", "20160203000000 https://example.com/path/x", "20160204000000 https://example.com/pathology"}},
		{"host ignores the path", "url=example.com/a.php&matchType=host&fl=original&collapse=urlkey", []string{
			"https://example.com/", "https://example.com/a.php", "https://example.com/img.png", "https://example.com/missing",
			"https://example.com/path/", "https://example.com/path/x", "https://example.com/pathology"}},
		{"domain by wildcard: subdomains, not a neighbour", "url=*.example.com&fl=original&collapse=urlkey", []string{
			"https://example.com/", "https://example.com/a.php", "https://example.com/img.png", "https://example.com/missing",
			"https://example.com/path/", "https://example.com/path/x", "https://example.com/pathology",
			"https://sub.example.com/", "https://deep.sub.example.com/x"}},
		{"domain by matchType", "url=sub.example.com&matchType=domain&fl=original", []string{
			"https://sub.example.com/", "https://deep.sub.example.com/x"}},
		{"filter exact (=)", "url=example.com/*&filter==mimetype:image/png&fl=original", []string{"https://example.com/img.png"}},
		{"filter plain is a whole-field regex", "url=example.com/*&filter=statuscode:4..&fl=original", []string{"https://example.com/missing"}},
		{"filter plain value is exact", "url=example.com/*&filter=mimetype:text&fl=original", nil},
		{"filter ~ matches from the start", "url=*.example.com&filter=~original:.*\\.php$&fl=original", []string{"https://example.com/a.php"}},
		{"filter !", "url=example.com/*&filter=!statuscode:200&filter=!mimetype:warc/revisit&fl=original", []string{"https://example.com/missing"}},
		{"filter !~", "url=example.com/*&filter=!~mimetype:text/&fl=original,mimetype", []string{
			"https://example.com/ warc/revisit", "https://example.com/img.png image/png"}},
		{"filters repeat (and)", "url=example.com/*&filter=mime:text/html&filter=status:200&from=2016&fl=original", []string{
			"https://example.com/", "https://example.com/path/", "https://example.com/pathology"}},
		{"collapse by digest", "url=example.com/&collapse=digest&fl=timestamp,digest", []string{
			"20140115103000 sha256:0001", "20150301120000 sha256:0002", "20160101000000 sha256:0003"}},
		{"collapse by timestamp:4 (one a year)", "url=example.com/&collapse=timestamp:4&fl=timestamp", []string{
			"20140115103000", "20150301120000", "20160101000000", "20170101000000"}},
		{"default fields", "url=example.com/missing", []string{
			"com,example)/missing 20150701000000 https://example.com/missing text/html 404 sha256:0012 " + strconv.Itoa(lengthOf(t, s, "https://example.com/missing"))}},
		{"embargoed only: nothing replayable", "url=example.com/secret", nil},
		{"showEmbargoed lists the tombstone", "url=example.com/secret&showEmbargoed=true", []string{
			"com,example)/secret 20261101000000 https://example.com/secret text/html 200 sha256:0098 - embargoed 2027-01-30T00:00:00Z"}},
		{"showEmbargoed keeps released ones", "url=example.com/&showEmbargoed=true&limit=-2&fl=timestamp,state,release_at", []string{
			"20170101000000 released 2017-01-08T00:00:00Z", "20261120000000 embargoed 2027-02-18T00:00:00Z"}},
		{"never captured", "url=nowhere.example/", nil},
		{"url with // in the query (the SURT folds it)", "url=http://example.com//path/x" + fl, []string{"20160203000000 https://example.com/path/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := cdxLines(t, s, tc.query); !slices.Equal(got, tc.want) {
				t.Errorf("/cdx?%s:\n got %q\nwant %q", tc.query, got, tc.want)
			}
		})
	}
}

// lengthOf is the record length of the newest released capture of u.
func lengthOf(t *testing.T, s *Server, u string) int {
	var a capturesJSON
	decode(t, get(t, s, "/api/v1/captures?url="+url.QueryEscape(u)).Body, &a)
	return int(a.Captures[0].WARC.Length)
}

func TestCDXOutputs(t *testing.T) {
	t.Parallel()
	s := cdxFixture(t).server(testNow)
	t.Run("json: array of arrays with a header row", func(t *testing.T) {
		t.Parallel()
		rec := get(t, s, "/api/v1/cdx?url=example.com/&output=json&limit=2&fl=urlkey,timestamp,statuscode")
		var rows [][]string
		if err := json.Unmarshal(rec.Body.Bytes(), &rows); err != nil || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("%s %q: %v", rec.Header().Get("Content-Type"), rec.Body, err)
		}
		want := [][]string{{"urlkey", "timestamp", "statuscode"}, {"com,example)/", "20140115103000", "200"}, {"com,example)/", "20140601000000", "200"}}
		if fmt.Sprint(rows) != fmt.Sprint(want) {
			t.Errorf("rows = %q, want %q", rows, want)
		}
	})
	t.Run("json default header is Wayback's", func(t *testing.T) {
		t.Parallel()
		var rows [][]string
		decode(t, get(t, s, "/cdx?url=example.com/&output=json&limit=1").Body, &rows)
		if want := []string{"urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"}; !slices.Equal(rows[0], want) {
			t.Errorf("header %q, want %q", rows[0], want)
		}
	})
	t.Run("json, empty", func(t *testing.T) {
		t.Parallel()
		if body := get(t, s, "/cdx?url=nowhere.example&output=json").Body.String(); body != "[]\n" {
			t.Errorf("body %q, want []", body)
		}
	})
	t.Run("cdxj: key, timestamp, JSON block of pywb's fields", func(t *testing.T) {
		t.Parallel()
		lines := cdxLines(t, s, "url=example.com/img.png&output=cdxj")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "com,example)/img.png 20150601000000 {") {
			t.Fatalf("lines %q", lines)
		}
		var block map[string]string
		if err := json.Unmarshal([]byte(lines[0][strings.Index(lines[0], "{"):]), &block); err != nil {
			t.Fatal(err)
		}
		if block["url"] != "https://example.com/img.png" || block["mime"] != "image/png" || block["status"] != "200" ||
			!strings.HasPrefix(block["filename"], "PUBLIC-") || block["offset"] == "" || block["length"] == "" {
			t.Errorf("block %v", block)
		}
	})
	t.Run("ndjson: one object per line", func(t *testing.T) {
		t.Parallel()
		lines := cdxLines(t, s, "url=example.com/&output=ndjson&fl=timestamp,url&limit=1")
		if len(lines) != 1 || lines[0] != `{"timestamp":"20140115103000","url":"https://example.com/"}` {
			t.Errorf("lines %q", lines)
		}
	})
	t.Run("pages", func(t *testing.T) {
		t.Parallel()
		var n map[string]int
		decode(t, get(t, s, "/cdx?url=*.example.com&showNumPages=true&pageSize=4&output=json").Body, &n)
		if n["pages"] != 4 || n["blocks"] != 13 || n["pageSize"] != 4 {
			t.Errorf("showNumPages = %v, want 4 pages of 4 for 13 captures", n)
		}
		if got := cdxLines(t, s, "url=*.example.com&showNumPages=true&pageSize=4"); !slices.Equal(got, []string{"4"}) {
			t.Errorf("text showNumPages = %q", got)
		}
		var all []string
		for p := range 4 {
			all = append(all, cdxLines(t, s, fmt.Sprintf("url=*.example.com&pageSize=4&page=%d", p))...)
		}
		if whole := cdxLines(t, s, "url=*.example.com"); !slices.Equal(all, whole) {
			t.Errorf("pages joined:\n%q\nwhole:\n%q", all, whole)
		}
		if rec := get(t, s, "/cdx?url=*.example.com&pageSize=4&page=4"); rec.Code != 400 {
			t.Errorf("page past the end: status %d, want 400", rec.Code)
		}
	})
	for _, q := range []string{"", "url=example.com&matchType=nope", "url=example.com&from=2014x", "url=example.com&from=201401011200001",
		"url=example.com&limit=0", "url=example.com&sort=closest", "url=example.com/*&sort=closest&closest=2015", "url=example.com&filter=nofield:x",
		"url=example.com&filter=status", "url=example.com&filter=~status:(", "url=example.com&fl=bogus", "url=example.com&output=xml",
		"url=example.com&collapse=digest&collapse=urlkey", "url=example.com&collapse=timestamp:x", "url=example.com&limit=-200000",
		"url=example.com&pageSize=0"} {
		if rec := get(t, s, "/cdx?"+q); rec.Code != 400 || !strings.Contains(rec.Body.String(), `"error"`) {
			t.Errorf("/cdx?%s: status %d %s, want 400 with an error", q, rec.Code, rec.Body)
		}
	}
}

// For random URLs, prefixes, hosts and domains of a generated archive, /cdx answers what the
// public CDXJ says: the in-memory index read from the CDXJ files (the tests' reference),
// rendered as CDX lines by hand.
func TestCDXAnswersAsPublicCDXJ(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := synth.Write(context.Background(), dir, synth.Options{N: 20_000, Commits: 5}); err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(dir, "public")
	mem, err := loadMemIndex(os.DirFS(pub))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(pub, Options{Logger: discard, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	urls := readLines(t, filepath.Join(dir, "urls.txt"))
	want := func(m matcher, keep func(string) bool, embargoed bool) []string {
		page, _ := mem.prefix(m, cursor{}, 1<<30)
		var out []string
		for i := 0; i < len(page); {
			j := i
			for j < len(page) && page[j].key() == page[i].key() {
				j++
			}
			for k := j - 1; k >= i; k-- { // oldest first within a key
				c := &page[k]
				if !keep(c.key()) || !c.released && !embargoed {
					continue
				}
				mime := c.mime
				if c.revisit {
					mime = "warc/revisit"
				}
				length := "-"
				if c.released {
					length = strconv.FormatInt(c.length, 10)
				}
				out = append(out, strings.Join([]string{c.key(), time.Unix(0, c.time).UTC().Format(public.Timestamp14), c.url(), orDefault(mime, "-"),
					strconv.Itoa(int(c.status)), c.digest(), length}, " "))
			}
			i = j
		}
		return out
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 300 {
		u := urls[rng.IntN(len(urls))]
		key, _ := surt.Key(u)
		var q string
		var m matcher
		keep := func(string) bool { return true }
		switch i % 4 {
		case 0:
			q, m = "url="+url.QueryEscape(u), matcher{from: key}
			keep = func(k string) bool { return k == key }
		case 1:
			p := u[:strings.LastIndex(u, "/")+1]
			pk, _ := surt.Key(p)
			q, m = "url="+url.QueryEscape(p+"*"), query{raw: p, key: pk}.matcher()
		case 2:
			h, _, _ := strings.Cut(key, ")")
			q, m = "matchType=host&url="+url.QueryEscape(u), matcher{from: h + ")"}
		case 3:
			pu, _ := url.Parse(u)
			host := strings.TrimPrefix(pu.Hostname(), "www.")
			h, _, _ := strings.Cut(key, ")")
			q, m = "url="+url.QueryEscape("*."+host), matcher{from: h}
			keep = func(k string) bool { r := k[len(h):]; return r[0] == ')' || r[0] == ',' || r[0] == ':' }
		}
		embargoed := i%3 == 0
		if embargoed {
			q += "&showEmbargoed=true&fl=urlkey,timestamp,original,mimetype,statuscode,digest,length"
		}
		if got, w := cdxLines(t, s, q), want(m, keep, embargoed); !slices.Equal(got, w) {
			t.Fatalf("/cdx?%s: %d lines, the public CDXJ says %d:\n got %.600q\nwant %.600q", q, len(got), len(w), got, w)
		}
	}
}

// BenchmarkCDX: one /cdx query of each kind on a generated public side of 200,000 captures
// (5 commits: tiered segments), µs per query reported by go test.
func BenchmarkCDX(b *testing.B) {
	dir := b.TempDir()
	if _, err := synth.Write(context.Background(), dir, synth.Options{N: 200_000, Commits: 5}); err != nil {
		b.Fatal(err)
	}
	s, err := Open(filepath.Join(dir, "public"), Options{Logger: discard, Now: func() time.Time { return testNow }})
	if err != nil {
		b.Fatal(err)
	}
	urls := readLines(b, filepath.Join(dir, "urls.txt"))
	for _, bc := range []struct{ name, query string }{
		{"exact", "url=%s"},
		{"exact-json", "url=%s&output=json"},
		{"exact-closest", "url=%s&sort=closest&closest=2026&limit=1"},
		{"prefix-limit100", "url=%s*&limit=100"},
		{"host-limit100-filter", "url=%s&matchType=host&limit=100&filter=statuscode:200"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			lines := 0
			for b.Loop() {
				u := urls[rng.IntN(len(urls))]
				if strings.Contains(bc.name, "prefix") {
					u = u[:strings.LastIndex(u, "/")+1]
				}
				rec := get(b, s, "/cdx?"+fmt.Sprintf(bc.query, url.QueryEscape(u)))
				if rec.Code != 200 {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
				lines += strings.Count(rec.Body.String(), "\n")
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/query")
			b.ReportMetric(float64(lines)/float64(b.N), "lines/query")
		})
	}
}
