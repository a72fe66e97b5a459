package lookup

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestCapturesContract(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	rec := get(t, s, "/api/v1/captures?url="+url.QueryEscape("https://example.com/a"))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	// The contract's shape, field for field (docs/formats.md#lookup-api): decode into maps to see exactly what is there.
	var got struct {
		URL      string           `json:"url"`
		Captures []map[string]any `json:"captures"`
	}
	decode(t, rec.Body, &got)
	if got.URL != "https://example.com/a" || len(got.Captures) != 2 {
		t.Fatalf("got url %q with %d captures, want https://example.com/a with 2", got.URL, len(got.Captures))
	}
	emb, rel := got.Captures[0], got.Captures[1]
	wantEmb := map[string]any{
		"timestamp": "2026-11-29T20:00:00Z", "status": 200.0, "state": "embargoed", "release_at": "2027-02-27T20:00:00Z",
		"embargo_source": "header", "payload_digest": "sha256:aaaa", "content_usage": []any{"train-ai=n"}, // a line without the raw statements: the combined list
		"usage":   map[string]any{"ai-use": "unknown", "search": "unknown", "train-ai": "disallow"},
		"headers": []any{[]any{"Content-Type", "text/html"}, []any{"Last-Modified", "Sun, 29 Nov 2026 19:00:00 GMT"}},
	}
	for k, v := range wantEmb {
		if b1, b2 := mustJSON(t, emb[k]), mustJSON(t, v); b1 != b2 {
			t.Errorf("embargoed %s = %s, want %s", k, b1, b2)
		}
	}
	if _, ok := emb["warc"]; ok {
		t.Errorf("embargoed capture has a warc location: %v", emb["warc"])
	}
	wantRel := map[string]any{
		"timestamp": "2026-08-01T10:00:00Z", "status": 200.0, "state": "released", "release_at": "2026-08-08T10:00:00Z",
		"payload_digest": "sha256:bbbb", "embargo_source": "robots.txt",
		// As stated, robots.txt rule first, then each header field line; then combined per category.
		"content_usage": []any{"train-ai=y, search=y", `train-ai=y;note="as stated"`, "x-label=n"},
		"usage":         map[string]any{"ai-use": "unknown", "search": "allow", "train-ai": "allow"},
	}
	for k, v := range wantRel {
		if b1, b2 := mustJSON(t, rel[k]), mustJSON(t, v); b1 != b2 {
			t.Errorf("released %s = %s, want %s", k, b1, b2)
		}
	}
	w, _ := rel["warc"].(map[string]any)
	if w["file"] != "shards/PUBLIC-20261129000000-00001.warc.gz" || w["offset"] != 0.0 || w["length"].(float64) <= 0 {
		t.Errorf("released warc = %v", rel["warc"])
	}
}

// TestCapturesEmbargoSource: a released capture whose line lacks the embargo source takes its
// tombstone line's; a capture with none recorded has no embargo_source key.
func TestCapturesEmbargoSource(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	tests := []struct {
		url  string
		want []any // per capture, newest first; nil: no key
	}{
		{"https://example.com/b", []any{nil, "robots.txt"}},
		{"https://example.com/tree/p01", []any{nil}},
	}
	for _, tc := range tests {
		rec := get(t, s, "/api/v1/captures?url="+url.QueryEscape(tc.url))
		var got struct {
			Captures []map[string]any `json:"captures"`
		}
		decode(t, rec.Body, &got)
		if len(got.Captures) != len(tc.want) {
			t.Fatalf("%s: %d captures, want %d", tc.url, len(got.Captures), len(tc.want))
		}
		for i, c := range got.Captures {
			if v, ok := c["embargo_source"]; v != tc.want[i] || ok != (tc.want[i] != nil) {
				t.Errorf("%s capture %d: embargo_source %v (present %v), want %v", tc.url, i, v, ok, tc.want[i])
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCapturesMatching(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	tests := []struct {
		name, url string
		code      int
		captures  int
	}{
		{"as indexed", "https://example.com/a", 200, 2},
		{"http scheme", "http://example.com/a", 200, 2},
		{"www prefix", "https://www.example.com/a", 200, 2},
		{"upper case", "HTTPS://EXAMPLE.COM/A", 200, 2},
		{"trailing slash", "https://example.com/a/", 200, 2},
		{"fragment", "https://example.com/a#top", 200, 2},
		{"default port", "https://example.com:443/a", 200, 2},
		{"no scheme typed", "example.com/a", 200, 2},
		{"released wins over its tombstone", "https://example.com/b", 200, 2},
		{"unknown URL", "https://example.com/nothing", 404, 0},
		{"unknown host", "https://example.org/a", 404, 0},
		{"other port", "https://example.com:8443/a", 404, 0},
		{"not http", "ftp://example.com/a", 400, 0},
		{"empty", "", 400, 0},
		{"too long", "https://example.com/" + strings.Repeat("x", maxURL), 400, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := get(t, s, "/api/v1/captures?url="+url.QueryEscape(tc.url))
			if rec.Code != tc.code {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.code, rec.Body)
			}
			if tc.code != 200 {
				var e apiError
				decode(t, rec.Body, &e)
				if e.Error == "" || strings.Contains(e.Error, "\n") {
					t.Errorf("error %q is not one line", e.Error)
				}
				return
			}
			var got capturesJSON
			decode(t, rec.Body, &got)
			if len(got.Captures) != tc.captures {
				t.Errorf("%d captures, want %d", len(got.Captures), tc.captures)
			}
			if !slices.IsSortedFunc(got.Captures, func(a, b captureJSON) int { return strings.Compare(b.Timestamp, a.Timestamp) }) {
				t.Errorf("captures not newest first: %+v", got.Captures)
			}
		})
	}
}

func TestReleasedWinsAndKeepsHeaders(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	var got capturesJSON
	decode(t, get(t, s, "/api/v1/captures?url=https://example.com/b").Body, &got)
	var b1 *captureJSON
	for i, c := range got.Captures {
		if c.Timestamp == "2026-10-01T00:00:00Z" {
			if b1 != nil {
				t.Fatal("capture b1 listed twice")
			}
			b1 = &got.Captures[i]
		}
	}
	if b1 == nil || b1.State != "released" || b1.WARC == nil {
		t.Fatalf("b1 = %+v, want released with a warc location", b1)
	}
	if string(b1.Headers) != `[["Content-Type","text/plain"]]` {
		t.Errorf("b1 headers = %s, want the tombstone's", b1.Headers)
	}
}

func TestPrefixPagination(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	tests := []struct {
		name, url string
		limit     int
		want      int
	}{
		{"directory with slash, pages of 10", "https://example.com/tree/", 10, 25},
		{"directory, one page", "https://example.com/tree/", 1000, 25},
		{"plain prefix takes siblings", "https://example.com/tree", 7, 26},
		{"whole host", "https://example.com/", 4, 30},
		{"one page exactly", "https://example.com/tree/p1", 10, 10},
		{"nothing below", "https://example.com/zzz/", 10, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			seen := map[string]bool{}
			cursor, pages := "", 0
			for {
				target := "/api/v1/captures?matchType=prefix&limit=" + itoa(tc.limit) + "&url=" + url.QueryEscape(tc.url)
				if cursor != "" {
					target += "&cursor=" + cursor
				}
				rec := get(t, s, target)
				if rec.Code != 200 {
					t.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
				var got capturesJSON
				decode(t, rec.Body, &got)
				pages++
				if len(got.Captures) > tc.limit {
					t.Fatalf("page of %d, limit %d", len(got.Captures), tc.limit)
				}
				for _, c := range got.Captures {
					k := c.URL + " " + c.Timestamp
					if seen[k] {
						t.Fatalf("%s listed twice", k)
					}
					seen[k] = true
				}
				if got.NextCursor == "" {
					break
				}
				cursor = got.NextCursor
				if pages > 100 {
					t.Fatal("pagination does not end")
				}
			}
			if len(seen) != tc.want {
				t.Errorf("%d captures, want %d", len(seen), tc.want)
			}
			if wantPages := max(1, (tc.want+tc.limit-1)/tc.limit); pages != wantPages && pages != wantPages+1 {
				t.Errorf("%d pages for %d captures by %d", pages, tc.want, tc.limit)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestBadRequests(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	tests := []struct {
		name, target string
		code         int
	}{
		{"unknown match type", "/api/v1/captures?url=https://example.com/&matchType=regex", 400},
		{"limit zero", "/api/v1/captures?url=https://example.com/&matchType=prefix&limit=0", 400},
		{"limit too large", "/api/v1/captures?url=https://example.com/&matchType=prefix&limit=1001", 400},
		{"limit not a number", "/api/v1/captures?url=https://example.com/&matchType=prefix&limit=ten", 400},
		{"forged cursor", "/api/v1/captures?url=https://example.com/&matchType=prefix&cursor=xyz", 400},
		{"query string too long", "/api/v1/captures?url=https://example.com/&pad=" + strings.Repeat("x", maxQuery), 400},
		{"unknown path", "/api/v2/captures?url=https://example.com/a", 404},
		{"unknown page", "/admin", 404},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := get(t, s, tc.target)
			if rec.Code != tc.code {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want JSON", ct)
			}
			var e apiError
			decode(t, rec.Body, &e)
			if e.Error == "" {
				t.Error("no error message")
			}
		})
	}
}

func TestReadOnlyAndSecurityHeaders(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		for _, path := range []string{"/api/v1/captures?url=https://example.com/a", "/", "/api/v1/record?url=https://example.com/a"} {
			t.Run(method+" "+path, func(t *testing.T) {
				rec := httptestDo(s, method, path)
				if rec.Code != http.StatusMethodNotAllowed {
					t.Fatalf("status %d, want 405", rec.Code)
				}
				if rec.Header().Get("Content-Type") != "application/json" {
					t.Errorf("not JSON: %q", rec.Header().Get("Content-Type"))
				}
			})
		}
	}
	for _, path := range []string{"/", "/?url=example.com/a", "/api/v1/captures?url=https://example.com/a", "/calendar.svg", "/nothing", "/static/style.css"} {
		t.Run("headers "+path, func(t *testing.T) {
			rec := get(t, s, path)
			h := rec.Header()
			if h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") ||
				h.Get("X-Frame-Options") != "DENY" {
				t.Errorf("security headers missing: %v", h)
			}
		})
	}
}
