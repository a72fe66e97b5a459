package lookup

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// do sends one request with header fields to h.
func do(t testing.TB, h http.Handler, method, target string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	h.ServeHTTP(rec, r)
	return rec
}

// links parses a Link field value (RFC 8288, as RFC 7089 writes it) into target → params.
func links(t testing.TB, v string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	re := regexp.MustCompile(`\s*<([^>]*)>((?:\s*;\s*[a-z]+="[^"]*")*)\s*(,|$)`)
	param := regexp.MustCompile(`;\s*([a-z]+)="([^"]*)"`)
	rest := v
	for rest != "" {
		m := re.FindStringSubmatchIndex(rest)
		if m == nil || m[0] != 0 {
			t.Fatalf("not a Link value at %q (whole: %q)", rest, v)
		}
		target := rest[m[2]:m[3]]
		ps := map[string]string{}
		for _, p := range param.FindAllStringSubmatch(rest[m[4]:m[5]], -1) {
			ps[p[1]] = p[2]
		}
		if _, dup := out[target]; dup {
			t.Errorf("target %s listed twice in %q", target, v)
		}
		out[target] = ps
		rest = rest[m[1]:]
	}
	return out
}

// rels maps each relation type of a Link value to its targets.
func rels(t testing.TB, v string) map[string][]string {
	out := map[string][]string{}
	for target, ps := range links(t, v) {
		for r := range strings.FieldsSeq(ps["rel"]) {
			out[r] = append(out[r], target)
		}
	}
	return out
}

const base = "http://example.com" // httptest.NewRequest's host

func mementoOf(u, ts string) string {
	return base + "/api/v1/record?url=" + strings.NewReplacer(":", "%3A", "/", "%2F").Replace(u) + "&timestamp=" + ts
}

// RFC 7089 section 4.1.1's TimeGate answer: 302 to the memento closest to Accept-Datetime,
// Vary: accept-datetime, and a Link with original, timemap and the mementos around it.
func TestTimegate(t *testing.T) {
	t.Parallel()
	s := cdxFixture(t).server(testNow)
	root := "https://example.com/"
	tests := []struct {
		name, target, accept string
		code                 int
		location             string
		rels                 map[string]string // relation → the one target it must have
	}{
		{"closest to Accept-Datetime", "/timegate/https://example.com/", "Thu, 01 Jan 2015 00:00:00 GMT", 302, mementoOf(root, "20150301120000"),
			map[string]string{"original": root, "timemap": base + "/timemap/link/" + root, "first": mementoOf(root, "20140115103000"),
				"prev": mementoOf(root, "20140601000000"), "next": mementoOf(root, "20160101000000"), "last": mementoOf(root, "20170101000000")}},
		{"http:// inside the path, scheme and www do not matter", "/timegate/http://www.example.com/", "Sun, 01 Jun 2014 00:00:01 GMT", 302,
			mementoOf(root, "20140601000000"), map[string]string{"original": root, "first": mementoOf(root, "20140115103000")}},
		{"without Accept-Datetime: the newest", "/timegate/example.com/", "", 302, mementoOf(root, "20170101000000"), nil},
		{"before the first: the first", "/timegate/https://example.com/", "Mon, 01 Jan 1990 00:00:00 GMT", 302, mementoOf(root, "20140115103000"), nil},
		{"RFC 850 Accept-Datetime", "/timegate/https://example.com/", "Sunday, 01-Jun-14 00:00:01 GMT", 302, mementoOf(root, "20140601000000"), nil},
		{"percent-encoded whole", "/timegate/https%3A%2F%2Fexample.com%2Fpath%2Fx", "", 302, mementoOf("https://example.com/path/x", "20160203000000"), nil},
		{"the archived URL's query stays", "/timegate/https://example.com/a.php?", "", 302, mementoOf("https://example.com/a.php", "20150505000000"), nil},
		{"bad Accept-Datetime", "/timegate/https://example.com/", "2015-01-01", 400, "", nil},
		{"never captured", "/timegate/https://example.com/none", "", 404, "", nil},
		{"no URL", "/timegate/", "", 400, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := do(t, s, "GET", tc.target, map[string]string{"Accept-Datetime": tc.accept})
			if rec.Code != tc.code {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.code, rec.Body)
			}
			if v := rec.Header().Get("Vary"); v != "accept-datetime" {
				t.Errorf("Vary %q", v)
			}
			if tc.code != 302 {
				return
			}
			if loc := rec.Header().Get("Location"); loc != tc.location {
				t.Errorf("Location %s, want %s", loc, tc.location)
			}
			ls := links(t, rec.Header().Get("Link"))
			if p := ls[tc.location]; p == nil || !strings.Contains(p["rel"], "memento") || p["datetime"] == "" {
				t.Errorf("the memento chosen is not in the Link as a memento: %v", p)
			} else if _, err := http.ParseTime(p["datetime"]); err != nil || !strings.HasSuffix(p["datetime"], " GMT") {
				t.Errorf("datetime %q is not an RFC 1123 date", p["datetime"])
			}
			if tm := ls[base+"/timemap/link/"+root]; tc.rels != nil && (tm == nil || tm["type"] != "application/link-format") {
				t.Errorf("timemap link %v lacks its type", tm)
			}
			got := rels(t, rec.Header().Get("Link"))
			for r, target := range tc.rels {
				if len(got[r]) != 1 || got[r][0] != target {
					t.Errorf("rel %s: %v, want %s", r, got[r], target)
				}
			}
		})
	}
}

// The TimeGate over a real listener: /timegate/http://… is answered, not redirected to a
// cleaned path; and a URL whose captures are all embargoed answers 451 with Retry-After.
func TestTimegateOverHTTP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(cdxFixture(t).server(testNow))
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		path string
		code int
	}{{"/timegate/http://example.com/path/x", 302}, {"/timegate/https://example.com/secret", 451}, {"/timemap/link/http://example.com/path//x", 200}} {
		resp, err := client.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode != tc.code || tc.code == 302 && !strings.Contains(loc, "/api/v1/record?url=https%3A%2F%2Fexample.com%2Fpath%2Fx&timestamp=20160203000000") {
			t.Errorf("%s: %d Location %q, want %d to the record", tc.path, resp.StatusCode, loc, tc.code)
		}
		if tc.code == 451 {
			if ra := resp.Header.Get("Retry-After"); ra != "Sat, 30 Jan 2027 00:00:00 GMT" {
				t.Errorf("Retry-After %q", ra)
			}
			if r := rels(t, resp.Header.Get("Link")); len(r["blocked-by"]) != 1 || !strings.HasSuffix(r["blocked-by"][0], "/api/v1/captures?url=https%3A%2F%2Fexample.com%2Fsecret") {
				t.Errorf("Link %q lacks blocked-by to the tombstone", resp.Header.Get("Link"))
			}
		}
	}
}

// RFC 7089 section 5.1.1's TimeMap: original, self (with from and until), timegate, then the
// mementos oldest first, the first and last marked so.
func TestTimemap(t *testing.T) {
	t.Parallel()
	s := cdxFixture(t).server(testNow)
	rec := get(t, s, "/timemap/link/https://example.com/path/")
	want := `<https://example.com/path/>; rel="original",
<http://example.com/timemap/link/https://example.com/path/>; rel="self"; type="application/link-format"; from="Tue, 02 Feb 2016 00:00:00 GMT"; until="Tue, 02 Feb 2016 00:00:00 GMT",
<http://example.com/timegate/https://example.com/path/>; rel="timegate",
<http://example.com/api/v1/record?url=https%3A%2F%2Fexample.com%2Fpath%2F&timestamp=20160202000000>; rel="first last memento"; datetime="Tue, 02 Feb 2016 00:00:00 GMT"
`
	if rec.Code != 200 || rec.Body.String() != want || rec.Header().Get("Content-Type") != "application/link-format" {
		t.Errorf("%d %s:\n%s\nwant\n%s", rec.Code, rec.Header().Get("Content-Type"), rec.Body, want)
	}
	rec = get(t, s, "/timemap/link/https://example.com/")
	body := strings.ReplaceAll(strings.TrimSuffix(rec.Body.String(), "\n"), "\n", " ")
	got := rels(t, body)
	if len(got["memento"]) != 5 || len(got["first"]) != 1 || got["first"][0] != mementoOf("https://example.com/", "20140115103000") ||
		got["last"][0] != mementoOf("https://example.com/", "20170101000000") || len(got["self"]) != 1 || len(got["timegate"]) != 1 {
		t.Errorf("TimeMap relations %v", got)
	}
	if strings.Contains(body, "20261120000000") {
		t.Errorf("the embargoed capture is listed as a memento: %s", body)
	}
	var tm timemapJSON
	rec = get(t, s, "/timemap/json/https://example.com/")
	decode(t, rec.Body, &tm)
	if tm.OriginalURI != "https://example.com/" || len(tm.Mementos.List) != 5 || tm.Mementos.First.Datetime != "2014-01-15T10:30:00Z" ||
		tm.Mementos.Last.URI != mementoOf("https://example.com/", "20170101000000") || tm.TimegateURI != base+"/timegate/https://example.com/" {
		t.Errorf("JSON TimeMap %+v", tm)
	}
	for target, code := range map[string]int{"/timemap/link/https://example.com/secret": 451, "/timemap/json/https://example.com/none": 404, "/timemap/xml/https://example.com/": 404} {
		if rec := get(t, s, target); rec.Code != code {
			t.Errorf("%s: status %d, want %d", target, rec.Code, code)
		}
	}
	if rec := do(t, s, "POST", "/timemap/link/https://example.com/", nil); rec.Code != 405 {
		t.Errorf("POST: status %d, want 405", rec.Code)
	}
}

// Every record answer is a memento (RFC 7089 section 4.1.2's answer): Memento-Datetime, and a
// Link with original, timegate, timemap and its neighbours; a timestamp matching no capture
// redirects to the closest released one; Range is answered from the verified bytes.
func TestRecordMemento(t *testing.T) {
	t.Parallel()
	s := cdxFixture(t).server(testNow)
	root := "https://example.com/"
	rec := get(t, s, "/api/v1/record?url=https://example.com/&timestamp=20150301120000&format=payload")
	if rec.Code != 200 || rec.Header().Get("Memento-Datetime") != "Sun, 01 Mar 2015 12:00:00 GMT" {
		t.Fatalf("%d Memento-Datetime %q", rec.Code, rec.Header().Get("Memento-Datetime"))
	}
	want := map[string]string{"original": root, "timegate": base + "/timegate/" + root, "timemap": base + "/timemap/link/" + root,
		"first": mementoOf(root, "20140115103000"), "prev": mementoOf(root, "20140601000000"), "memento": mementoOf(root, "20150301120000"),
		"next": mementoOf(root, "20160101000000"), "last": mementoOf(root, "20170101000000")}
	got := rels(t, rec.Header().Get("Link"))
	for r, target := range want {
		if !slices.Contains(got[r], target) || r != "memento" && len(got[r]) != 1 {
			t.Errorf("rel %s: %v, want %s", r, got[r], target)
		}
	}
	rec = get(t, s, "/api/v1/record?url=https://example.com/&timestamp=20140115103000")
	if l := links(t, rec.Header().Get("Link"))[mementoOf(root, "20140115103000")]; l["rel"] != "first memento" {
		t.Errorf("the first memento's own link: %v", l)
	}
	for q, loc := range map[string]string{
		"url=https://example.com/&timestamp=20150101000000":                   "/api/v1/record?url=https%3A%2F%2Fexample.com%2F&timestamp=20150301120000",
		"url=https://example.com/&timestamp=2014-06-01T00:00:07Z&format=warc": "/api/v1/record?url=https%3A%2F%2Fexample.com%2F&timestamp=20140601000000&format=warc",
	} {
		if rec := get(t, s, "/api/v1/record?"+q); rec.Code != 302 || rec.Header().Get("Location") != loc {
			t.Errorf("%s: %d Location %q, want 302 %s", q, rec.Code, rec.Header().Get("Location"), loc)
		}
	}
	rec = get(t, s, "/api/v1/record?url=https://example.com/secret&timestamp=20200101000000")
	if rec.Code != 451 || rec.Header().Get("Retry-After") != "Sat, 30 Jan 2027 00:00:00 GMT" {
		t.Errorf("no capture then, only an embargoed one: %d Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	whole := get(t, s, "/api/v1/record?url=https://example.com/path/x")
	part := do(t, s, "GET", "/api/v1/record?url=https://example.com/path/x", map[string]string{"Range": "bytes=0-9"})
	if part.Code != 206 || part.Body.String() != whole.Body.String()[:10] || part.Header().Get("Content-Range") == "" ||
		whole.Header().Get("Accept-Ranges") != "bytes" || part.Header().Get("Link") == "" {
		t.Errorf("Range: %d %q Content-Range %q; whole Accept-Ranges %q", part.Code, part.Body, part.Header().Get("Content-Range"), whole.Header().Get("Accept-Ranges"))
	}
	if rec := do(t, s, "GET", "/api/v1/record?url=https://example.com/path/x", map[string]string{"Range": "bytes=100000-"}); rec.Code != 416 {
		t.Errorf("unsatisfiable Range: %d, want 416", rec.Code)
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	f := cdxFixture(t)
	s := f.server(testNow)
	for _, target := range []string{"/cdx?url=example.com/", "/api/v1/captures?url=example.com/", "/timemap/json/example.com/", "/api/v1/record?url=example.com/path/x"} {
		rec := get(t, s, target)
		if rec.Header().Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(rec.Header().Get("Access-Control-Expose-Headers"), "Memento-Datetime") {
			t.Errorf("%s: CORS fields %v", target, rec.Header())
		}
	}
	if rec := get(t, s, "/"); rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("the page allows other origins")
	}
	pre := do(t, s, "OPTIONS", "/timegate/http://example.com/", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Headers": "accept-datetime"})
	if pre.Code != 204 || pre.Header().Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(pre.Header().Get("Access-Control-Allow-Headers"), "Accept-Datetime") {
		t.Errorf("preflight: %d %v", pre.Code, pre.Header())
	}
	only, err := Open(f.dir, Options{Logger: discard, Now: func() time.Time { return testNow }, CORSOrigins: []string{"https://app.example"}})
	if err != nil {
		t.Fatal(err)
	}
	for origin, want := range map[string]string{"https://app.example": "https://app.example", "https://other.example": ""} {
		rec := do(t, only, "GET", "/cdx?url=example.com/", map[string]string{"Origin": origin})
		if got := rec.Header().Get("Access-Control-Allow-Origin"); got != want || rec.Header().Get("Vary") != "Origin" {
			t.Errorf("origin %s: allowed %q, want %q (Vary %q)", origin, got, want, rec.Header().Get("Vary"))
		}
	}
}
