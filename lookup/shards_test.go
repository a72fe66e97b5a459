package lookup

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// capturedShard asks the captures API where example.com/a's released record lies.
func capturedShard(t *testing.T, s http.Handler) (file string, offset, length int64) {
	t.Helper()
	var got struct {
		Captures []struct {
			WARC *warcJSON `json:"warc"`
		} `json:"captures"`
	}
	decode(t, get(t, s, "/api/v1/captures?url=https://example.com/a").Body, &got)
	for _, c := range got.Captures {
		if c.WARC != nil {
			return c.WARC.File, c.WARC.Offset, c.WARC.Length
		}
	}
	t.Fatal("example.com/a has no released capture")
	return "", 0, 0
}

// TestShardRoute: GET /shards/NAME answers the public shard as stored, whole or by the ranges
// the CDXJ's offset and length name (206, one gzip member that reads as the capture's record),
// with If-Range, several ranges (multipart/byteranges), HEAD, 416 past the end, CORS, an
// immutable Cache-Control and an ETag.
func TestShardRoute(t *testing.T) {
	t.Parallel()
	f := standard(t)
	s := f.server(testNow)
	file, offset, length := capturedShard(t, s)
	whole, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	do := func(header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/"+file, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}

	rec := do()
	if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), whole) {
		t.Fatalf("whole shard: %d, %d bytes, want 200 and the file's %d", rec.Code, rec.Body.Len(), len(whole))
	}
	etag := rec.Header().Get("ETag")
	for k, want := range map[string]string{
		"Content-Type": "application/gzip", "Accept-Ranges": "bytes", "Cache-Control": cacheRecord,
		"Access-Control-Allow-Origin": "*", "ETag": `"` + filepath.Base(file) + `"`,
	} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}

	member := fmt.Sprintf("bytes=%d-%d", offset, offset+length-1)
	rec = do("Range", member)
	if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), whole[offset:offset+length]) ||
		rec.Header().Get("Content-Range") != fmt.Sprintf("bytes %d-%d/%d", offset, offset+length-1, len(whole)) {
		t.Fatalf("range %s: %d %q, %d bytes", member, rec.Code, rec.Header().Get("Content-Range"), rec.Body.Len())
	}
	zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	rec1, err := io.ReadAll(zr)
	if err != nil || !bytes.HasPrefix(rec1, []byte("WARC/1.")) || !bytes.Contains(rec1, []byte("WARC-Target-URI: https://example.com/a\r\n")) {
		t.Errorf("the range is not example.com/a's record (%v):\n%.300s", err, rec1)
	}

	for _, tc := range []struct {
		name   string
		header []string
		code   int
		body   []byte
	}{
		{"If-Range with the ETag", []string{"Range", member, "If-Range", etag}, http.StatusPartialContent, whole[offset : offset+length]},
		{"If-Range with another ETag", []string{"Range", member, "If-Range", `"PUBLIC-20000101000000-00001.warc.gz"`}, http.StatusOK, whole},
		{"suffix", []string{"Range", "bytes=-10"}, http.StatusPartialContent, whole[len(whole)-10:]},
		{"past the end", []string{"Range", fmt.Sprintf("bytes=%d-", len(whole)+5)}, http.StatusRequestedRangeNotSatisfiable, nil},
	} {
		rec := do(tc.header...)
		if rec.Code != tc.code || tc.body != nil && !bytes.Equal(rec.Body.Bytes(), tc.body) {
			t.Errorf("%s: %d, %d bytes; want %d and %d bytes", tc.name, rec.Code, rec.Body.Len(), tc.code, len(tc.body))
		}
	}
	if rec := do("Range", "bytes=0-9,20-29"); rec.Code != http.StatusPartialContent ||
		!strings.HasPrefix(rec.Header().Get("Content-Type"), "multipart/byteranges; boundary=") ||
		!bytes.Contains(rec.Body.Bytes(), whole[20:30]) {
		t.Errorf("two ranges: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if rec := httptestDo(s, http.MethodHead, "/"+file); rec.Code != http.StatusOK || rec.Body.Len() != 0 ||
		rec.Header().Get("Content-Length") != fmt.Sprint(len(whole)) {
		t.Errorf("HEAD: %d, %d body bytes, Content-Length %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"))
	}
	if rec := httptestDo(s, http.MethodPost, "/"+file); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", rec.Code)
	}
	req := httptest.NewRequest(http.MethodOptions, "/"+file, nil)
	req.Header.Set("Origin", "https://replay.example.org")
	req.Header.Set("Access-Control-Request-Headers", "range")
	pre := httptest.NewRecorder()
	s.ServeHTTP(pre, req)
	if pre.Code != http.StatusNoContent || !strings.Contains(pre.Header().Get("Access-Control-Allow-Headers"), "Range") {
		t.Errorf("preflight: %d %v", pre.Code, pre.Header())
	}
}

// TestShardRouteRefuses: only a shard's own name is served: never another file of public/, a
// file a pass is still writing, a tombstone file, a name that climbs out (however it is
// encoded), nor anything outside public/ that a name could reach.
func TestShardRouteRefuses(t *testing.T) {
	t.Parallel()
	f := standard(t)
	s := f.server(testNow)
	file, _, _ := capturedShard(t, s)
	base := filepath.Base(file)
	// A file beside the shards that must never be served, and one outside public/ with a shard's name.
	open := filepath.Join(f.dir, "shards", "PUBLIC-20261129000000-00009.warc.gz.open")
	os.WriteFile(open, []byte("being written"), 0o644)
	outside := filepath.Join(filepath.Dir(f.dir), "sealed")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "PUBLIC-20261129000000-00001.warc.gz"), []byte("SEALED BYTES"), 0o644)
	os.Symlink(outside, filepath.Join(f.dir, "shards", "evil"))
	secret := []byte("SEALED BYTES")

	for _, path := range []string{
		"/shards/",
		"/shards/" + strings.TrimSuffix(base, ".warc.gz") + ".cdxj",
		"/shards/PUBLIC-20261129000000-00009.warc.gz.open",
		"/shards/PUBLIC-20261129000000-00077.warc.gz", // a shard's name, no such file
		"/shards/TOMBSTONES-20261129000000-00001.warc.gz",
		"/shards/../state.json",
		"/shards/..%2fstate.json",
		"/shards/%2e%2e/%2e%2e/sealed/PUBLIC-20261129000000-00001.warc.gz",
		"/shards/..%2F..%2Fsealed%2FPUBLIC-20261129000000-00001.warc.gz",
		"/shards/evil/PUBLIC-20261129000000-00001.warc.gz", // a node's place, a symlink out of public/
		"/shards/n1/../" + base,
		"/shards/N1/" + base,
		"/shards/a/b/" + base,
		"/shards/" + base + "/",
		"/shards/" + base + "%00",
		"/shards//" + base,
	} {
		rec := get(t, s, path)
		if rec.Code == http.StatusOK || rec.Code == http.StatusPartialContent || bytes.Contains(rec.Body.Bytes(), secret) ||
			bytes.Contains(rec.Body.Bytes(), []byte("being written")) {
			t.Errorf("%s: %d, %.80q", path, rec.Code, rec.Body.String())
		}
	}
}
