package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/lookup"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/release"
)

// get asks h for target (sent as raw bytes where it is no valid request URI) and returns the
// status and body.
func get(t testing.TB, h http.Handler, target string) (int, []byte) {
	t.Helper()
	rec := testkit.Get(t, h, target)
	return rec.Code, rec.Body.Bytes()
}

// isJSONError reports whether b is one line of JSON {"error": "…"} with a non-empty message.
func isJSONError(b []byte) bool {
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(b, &e) == nil && e.Error != "" && !strings.Contains(strings.TrimSpace(string(b)), "\n")
}

// checkLookupAfterDamage serves dir/public and asks for the payload of every capture: those
// outside the damaged file must be served whole; those inside may fail, with a JSON error.
func checkLookupAfterDamage(t *testing.T, dir string, g *generator, now time.Time, damaged string) {
	t.Helper()
	srv, err := lookup.Open(filepath.Join(dir, "public"), lookup.Options{Now: func() time.Time { return now }, Logger: testkit.QuietLogger()})
	if err != nil {
		t.Fatalf("lookup.Open: %v", err)
	}
	entries := indexEntries(t, dir)
	for _, c := range g.all {
		file := entries[c.id].Public.File
		if c.original != nil {
			file = entries[c.original.id].Public.File // format=payload serves the original's record
		}
		target := fmt.Sprintf("/api/v1/record?url=%s&timestamp=%s&format=payload", url.QueryEscape(c.url), c.time.UTC().Format("20060102150405"))
		code, b := get(t, srv, target)
		switch {
		case file != damaged && (code != http.StatusOK || !strings.Contains(string(b), c.marker)):
			t.Errorf("%s (in %s, undamaged): %d %.200s", c.url, file, code, b)
		case file == damaged && code != http.StatusOK && !isJSONError(b):
			t.Errorf("%s (in the damaged %s): %d without a JSON error: %.200s", c.url, file, code, b)
		}
	}
}

// TestHostileQueries sends the lookup API the queries an attacker or a careless script sends —
// huge, badly encoded, NUL bytes, negative and huge limits, forged cursors, path traversal — and
// checks each gets a 4xx (or an honest 404) with a one-line JSON error, never a 5xx, and that
// the service still answers a good query correctly afterwards.
func TestHostileQueries(t *testing.T) {
	t.Parallel()
	seed := seedFor(t)
	dir := memDir(t)
	g := smallArchive(t, dir, seed)
	now := t0.Add(400 * 24 * time.Hour)
	if _, err := release.New(dir, release.Options{Logger: testkit.QuietLogger()}).Pass(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	srv, err := lookup.Open(filepath.Join(dir, "public"), lookup.Options{Now: func() time.Time { return now }, Logger: testkit.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	good := g.all[0]
	q := url.QueryEscape(good.url)
	huge := strings.Repeat("a", 100<<10)
	for _, tc := range []struct {
		name, target string
	}{
		{"no url", "/api/v1/captures"},
		{"empty url", "/api/v1/captures?url="},
		{"huge url", "/api/v1/captures?url=https://example.com/" + huge},
		{"huge query", "/api/v1/captures?url=" + q + "&x=" + huge},
		{"invalid percent-encoding", "/api/v1/captures?url=https://example.com/%zz%"},
		{"percent-encoded NUL", "/api/v1/captures?url=https://example.com/%00"},
		{"NUL in the host", "/api/v1/captures?url=https://exa%00mple.com/"},
		{"invalid UTF-8", "/api/v1/captures?url=https://example.com/%ff%fe"},
		{"not http", "/api/v1/captures?url=" + url.QueryEscape("file:///etc/passwd")},
		{"javascript", "/api/v1/captures?url=" + url.QueryEscape("javascript:alert(1)")},
		{"path traversal", "/api/v1/captures?url=" + url.QueryEscape("https://example.com/../../../../etc/passwd")},
		{"bare traversal", "/api/v1/captures?url=../../sealed"},
		{"negative limit", "/api/v1/captures?url=" + q + "&matchType=prefix&limit=-1"},
		{"zero limit", "/api/v1/captures?url=" + q + "&matchType=prefix&limit=0"},
		{"huge limit", "/api/v1/captures?url=" + q + "&matchType=prefix&limit=99999999999999999999999"},
		{"float limit", "/api/v1/captures?url=" + q + "&matchType=prefix&limit=1e9"},
		{"unknown matchType", "/api/v1/captures?url=" + q + "&matchType=regex"},
		{"forged cursor", "/api/v1/captures?url=" + q + "&matchType=prefix&cursor=WyIiLDAsZmFsc2UsIiIsMF0"},
		{"garbage cursor", "/api/v1/captures?url=" + q + "&matchType=prefix&cursor=!!!"},
		{"huge cursor", "/api/v1/captures?url=" + q + "&matchType=prefix&cursor=" + huge[:4000]},
		{"cursor with negative offset", "/api/v1/captures?url=" + q + "&matchType=prefix&cursor=WyJjb20sZXhhbXBsZSkvIiwtMSx0cnVlLCIuLi8uLi9ldGMvcGFzc3dkIiwtOTk5OTk5OTk5OV0"},
		{"repeated url", "/api/v1/captures?url=" + q + "&url=https://evil.example/"},
		{"record: garbage timestamp", "/api/v1/record?url=" + q + "&timestamp=yesterday"},
		{"record: negative timestamp", "/api/v1/record?url=" + q + "&timestamp=-99999999999999"},
		{"record: huge timestamp", "/api/v1/record?url=" + q + "&timestamp=99999999999999"},
		{"record: unknown format", "/api/v1/record?url=" + q + "&format=../../etc/passwd"},
		{"record: traversal url", "/api/v1/record?url=" + url.QueryEscape("https://x/../../sealed/x.warc.gz")},
		{"record: offset parameter ignored", "/api/v1/record?url=" + q + "&offset=-1&length=99999999999&file=../../index.db"},
		{"page: huge url", "/?url=https://example.com/" + huge},
		{"page: NUL", "/?url=%00"},
		{"unknown path with traversal", "/api/v1/../../sealed/"},
		{"static traversal", "/static/..%2f..%2findex.db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b := get(t, srv, tc.target)
			switch {
			case code >= 500:
				t.Errorf("%d (server error): %.300s", code, b)
			case strings.Contains(string(b), markerPrefix) && !strings.Contains(tc.target, q):
				t.Errorf("%d: answers with a body: %.300s", code, b)
			case code >= 400 && strings.HasPrefix(tc.target, "/api/") && !isJSONError(b):
				t.Errorf("%d without a one-line JSON error: %.300s", code, b)
			case code == http.StatusOK && (strings.Contains(tc.name, "limit") || (tc.name == "garbage cursor" || tc.name == "huge cursor") || strings.Contains(tc.name, "format")):
				t.Errorf("accepted: %d %.300s", code, b)
			}
		})
	}
	// The service is unharmed: a good query still answers in full.
	code, b := get(t, srv, "/api/v1/record?url="+q+"&format=payload&timestamp="+good.time.UTC().Format("20060102150405"))
	if code != http.StatusOK || !strings.Contains(string(b), good.marker) {
		t.Errorf("after the hostile queries, a good query answers %d %.200s", code, b)
	}
}

// TestMalformedCDXJ puts malformed lines beside good ones in the public CDXJ — broken JSON,
// unsorted, NUL bytes, a line over the 1 MiB limit, traversal and absolute file names, negative
// and huge offsets —, rebuilds the public index from them, and checks the lookup still loads,
// answers every good capture, and answers a capture whose line points outside public/ or past a
// file's end with a JSON error, never a file's bytes.
func TestMalformedCDXJ(t *testing.T) {
	t.Parallel()
	seed := seedFor(t)
	dir := memDir(t)
	g := smallArchive(t, dir, seed)
	now := t0.Add(400 * 24 * time.Hour)
	if _, err := release.New(dir, release.Options{Logger: testkit.QuietLogger()}).Pass(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	// A secret just outside public/ that a traversal would reach.
	if err := os.WriteFile(filepath.Join(dir, "outside.warc.gz"), []byte(markerPrefix+"OUTSIDE-PUBLIC!!"), 0o644); err != nil {
		t.Fatal(err)
	}
	line := func(surt, url, file string, off, length int64) string {
		b, _ := json.Marshal(public.CDXJ{URL: url, Digest: "sha256:00", Length: length, Offset: off, Filename: file,
			ReleaseAt: "2020-01-01T00:00:00Z", ID: "urn:uuid:bad-" + surt, State: public.StateReleased, Time: "2026-01-01T00:00:00Z", Status: 200})
		return surt + " 20260101000000 " + string(b)
	}
	bad := []string{
		"garbage",
		"com,evil)/ 2026 {}",
		"com,evil)/ 20260101000000 {not json",
		"com,evil)/ 20260101000000 " + `{"url":"https://evil.com/","state":"leaked"}`,
		"com,evil)/\x00 20260101000000 {}",
		"com,evil)/ 20260101000000 " + strings.Repeat("x", 2<<20),
		line("com,evil,traversal)/", "https://traversal.evil.com/", "../outside.warc.gz", 0, 20),
		line("com,evil,absolute)/", "https://absolute.evil.com/", "/etc/passwd", 0, 100),
		line("com,evil,negative)/", "https://negative.evil.com/", "shards/x.warc.gz", -5, 10),
		line("com,evil,huge)/", "https://huge.evil.com/", "shards/x.warc.gz", 1<<62, 1<<62),
		"",
		"\x00\x00\x00",
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "public", "shards", "*.cdxj"))
	if len(shards) == 0 {
		t.Fatal("no shard CDXJ")
	}
	for _, n := range shards {
		good, _ := os.ReadFile(n)
		// Shuffle the bad lines in; the good lines stay, out of order now.
		if err := os.WriteFile(n, []byte(strings.Join(bad, "\n")+"\n"+string(good)+strings.Join(bad, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The lookup reads the public index: rebuild it from the tampered CDXJ files, as
	// `archivectl reindex-public` does, so that every forged line meets the index's checks.
	if _, err := release.RebuildIndex(context.Background(), dir, release.Options{Logger: testkit.QuietLogger()}); err != nil {
		t.Fatalf("rebuilding the public index over malformed lines: %v", err)
	}
	srv, err := lookup.Open(filepath.Join(dir, "public"), lookup.Options{Now: func() time.Time { return now }, Logger: testkit.QuietLogger()})
	if err != nil {
		t.Fatalf("lookup.Open refuses a public index with malformed lines: %v", err)
	}
	for _, c := range g.all {
		target := fmt.Sprintf("/api/v1/record?url=%s&timestamp=%s&format=payload", url.QueryEscape(c.url), c.time.UTC().Format("20060102150405"))
		if code, b := get(t, srv, target); code != http.StatusOK || !strings.Contains(string(b), c.marker) {
			t.Errorf("good capture %s: %d %.200s", c.url, code, b)
		}
	}
	for _, u := range []string{"https://traversal.evil.com/", "https://absolute.evil.com/", "https://negative.evil.com/", "https://huge.evil.com/"} {
		for _, format := range []string{"payload", "warc", "warc.gz"} {
			code, b := get(t, srv, "/api/v1/record?url="+url.QueryEscape(u)+"&format="+format)
			switch {
			case strings.Contains(string(b), "OUTSIDE-PUBLIC") || strings.Contains(string(b), "root:"):
				t.Errorf("%s (%s): serves a file outside public/: %.200s", u, format, b)
			case code == http.StatusOK:
				t.Errorf("%s (%s): 200 for a forged line: %.200s", u, format, b)
			case !isJSONError(b):
				t.Errorf("%s (%s): %d without a JSON error: %.200s", u, format, code, b)
			}
		}
	}
}
