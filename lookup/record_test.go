package lookup

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/public"
)

func TestRecord(t *testing.T) {
	t.Parallel()
	f := standard(t)
	s := f.server(testNow)
	shard, err := os.ReadFile(filepath.Join(f.dir, "shards/PUBLIC-20261129000000-00001.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var a1 capturesJSON
	decode(t, get(t, s, "/api/v1/captures?url=https://example.com/a").Body, &a1)
	loc := a1.Captures[1].WARC
	member := shard[loc.Offset : loc.Offset+loc.Length]

	tests := []struct {
		name, query string
		code        int
		contentType string
		check       func(t *testing.T, body []byte)
	}{
		{"gzip member byte for byte", "url=https://example.com/a&timestamp=20260801100000&format=warc.gz", 200, "application/gzip",
			func(t *testing.T, body []byte) {
				if !bytes.Equal(body, member) {
					t.Errorf("got %d bytes, not the %d-byte member", len(body), len(member))
				}
			}},
		{"WARC record", "url=https://example.com/a&timestamp=20260801100000", 200, "application/warc",
			func(t *testing.T, body []byte) {
				want, _ := io.ReadAll(mustGunzip(t, member))
				if !bytes.Equal(body, want) || !bytes.HasPrefix(body, []byte("WARC/1.1\r\n")) {
					t.Errorf("record = %q", body)
				}
			}},
		{"payload", "url=http://www.example.com/a/&timestamp=2026-08-01T10:00:00Z&format=payload", 200, "text/html",
			func(t *testing.T, body []byte) {
				if string(body) != "<p>old version of a</p>" {
					t.Errorf("payload = %q", body)
				}
			}},
		{"newest released without timestamp", "url=https://example.com/a&format=payload", 200, "text/html",
			func(t *testing.T, body []byte) {
				if string(body) != "<p>old version of a</p>" {
					t.Errorf("payload = %q", body)
				}
			}},
		{"revisit payload is the original's", "url=https://example.com/b&timestamp=20261002000000&format=payload", 200, "text/plain",
			func(t *testing.T, body []byte) {
				if string(body) != "b body" {
					t.Errorf("payload = %q", body)
				}
			}},
		{"embargoed is unavailable for legal reasons", "url=https://example.com/a&timestamp=20261129200000", 451, "application/json",
			func(t *testing.T, body []byte) {
				if !strings.Contains(string(body), `"release_at":"2027-02-27T20:00:00Z"`) {
					t.Errorf("451 body lacks release_at: %s", body)
				}
			}},
		{"embargoed only, no timestamp", "url=https://example.com/tree/p01", 451, "application/json", nil},
		{"no capture at that time: the closest released", "url=https://example.com/a&timestamp=20200101000000", 302, "application/json",
			func(t *testing.T, body []byte) {
				if !strings.Contains(string(body), `"location":"/api/v1/record?url=https%3A%2F%2Fexample.com%2Fa\u0026timestamp=20260801100000"`) {
					t.Errorf("302 body %s", body)
				}
			}},
		{"unknown URL", "url=https://example.com/none", 404, "application/json", nil},
		{"bad timestamp", "url=https://example.com/a&timestamp=yesterday", 400, "application/json", nil},
		{"bad format", "url=https://example.com/a&format=pdf", 400, "application/json", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := get(t, s, "/api/v1/record?"+tc.query)
			if rec.Code != tc.code {
				t.Fatalf("status %d, want %d: %.200s", rec.Code, tc.code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != tc.contentType {
				t.Errorf("Content-Type %q, want %q", ct, tc.contentType)
			}
			if tc.check != nil {
				tc.check(t, rec.Body.Bytes())
			}
		})
	}
	rec := get(t, s, "/api/v1/record?format=payload&url="+url.QueryEscape("https://example.com/a"))
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox") {
		t.Errorf("archived payload served without a sandbox: CSP %q", csp)
	}
}

func mustGunzip(t *testing.T, b []byte) io.Reader {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// An index line must not lead the record endpoint outside public/shards: such lines are skipped
// at load, and a symlink planted inside public/ cannot reach out either (os.Root).
func TestRecordStaysInPublic(t *testing.T) {
	t.Parallel()
	f := standard(t)
	secret := filepath.Join(filepath.Dir(f.dir), "sealed")
	if err := os.MkdirAll(secret, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "x.warc.gz"), []byte("SEALED BYTES"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"../sealed/x.warc.gz", "shards/../../sealed/x.warc.gz", "/etc/passwd", "tombstones/x.warc.gz"} {
		f.add("shards/PUBLIC-20261129000000-00001.cdxj", public.CDXJ{
			URL: "https://evil.example/" + itoa(i), Status: 200, Digest: "sha256:ff", ID: "<urn:uuid:evil" + itoa(i) + ">",
			Time: "2026-01-01T00:00:00Z", ReleaseAt: "2026-01-01T00:00:00Z", State: "released", Filename: name, Length: 12,
		})
	}
	if err := os.Symlink(filepath.Join(secret, "x.warc.gz"), filepath.Join(f.dir, "shards", "link.warc.gz")); err != nil {
		t.Fatal(err)
	}
	f.add("shards/PUBLIC-20261129000000-00001.cdxj", public.CDXJ{
		URL: "https://evil.example/link", Status: 200, Digest: "sha256:ff", ID: "<urn:uuid:link>",
		Time: "2026-01-01T00:00:00Z", ReleaseAt: "2026-01-01T00:00:00Z", State: "released", Filename: "shards/link.warc.gz", Length: 12,
	})
	f.commit()
	s := f.server(testNow)
	if got := s.ix.Load().badLines; got != 4 {
		t.Errorf("%d malformed lines skipped, want the 4 that point outside public/shards", got)
	}
	for i := range 4 {
		if rec := get(t, s, "/api/v1/record?format=warc.gz&url=https://evil.example/"+itoa(i)); rec.Code != 404 {
			t.Errorf("line %d: status %d, want 404", i, rec.Code)
		}
	}
	rec := get(t, s, "/api/v1/record?format=warc.gz&url=https://evil.example/link")
	if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), "SEALED") {
		t.Errorf("symlink out of public/: status %d body %q", rec.Code, rec.Body)
	}
}
