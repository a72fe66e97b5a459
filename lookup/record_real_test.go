package lookup

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// TestRecordChecksPassRealRecords: every record the real store writes and the releaser copies
// passes the record endpoint's checks, with either digest the store offers, whatever the shape
// of the HTTP response (empty, no body, chunked, content-coded, revisit, LF line ends).
func TestRecordChecksPassRealRecords(t *testing.T) {
	t.Parallel()
	responses := map[string]string{
		"body":     "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\n<p>body</p>",
		"empty":    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n",
		"nobody":   "HTTP/1.1 204 No Content\r\n\r\n",
		"chunked":  "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"coded":    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\n\r\n" + string(gzipped("zipped")),
		"lf":       "HTTP/1.1 200 OK\nContent-Type: text/plain\n\nlf body",
		"repeated": "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\n<p>body</p>",
	}
	for _, digest := range []string{"sha256", "sha1"} {
		t.Run(digest, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
			st, err := store.Open(dir, store.Options{Logger: discard, Digest: digest, Now: func() time.Time { return t0 }})
			if err != nil {
				t.Fatal(err)
			}
			var caps []store.Capture
			i := 0
			for name, resp := range responses {
				u := "https://site.example/" + name
				if name == "repeated" {
					u = "https://site.example/body" // the same payload again: a revisit
				}
				c := sealCapture(u, "", t0.Add(time.Duration(i)*time.Second), embargo.None)
				c.Response = []byte(resp)
				caps = append(caps, c)
				i++
			}
			if _, err := st.Seal(context.Background(), caps); err != nil {
				t.Fatal(err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := release.New(dir, release.Options{Logger: discard}).Pass(context.Background(), t0.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			s, err := Open(filepath.Join(dir, "public"), Options{Logger: discard, Now: func() time.Time { return t0.Add(2 * time.Hour) }})
			if err != nil {
				t.Fatal(err)
			}
			if ix := s.ix.Load(); ix.released != len(responses) || ix.badLines != 0 {
				t.Fatalf("%d released, %d bad lines", ix.released, ix.badLines)
			}
			all, _, err := s.ix.Load().prefix(matcher{}, cursor{}, 1000) // every capture
			if err != nil || len(all) != len(responses) {
				t.Fatalf("%d captures listed (%v), want %d", len(all), err, len(responses))
			}
			revisits := 0
			for _, c := range all {
				revisits += boolInt(c.revisit)
				for _, format := range []string{"warc", "warc.gz", "payload"} {
					ts := time.Unix(0, c.time).UTC().Format("20060102150405")
					rec := get(t, s, fmt.Sprintf("/api/v1/record?format=%s&timestamp=%s&url=%s", format, ts, url.QueryEscape(c.url())))
					if rec.Code != 200 {
						t.Errorf("%s (revisit %v) as %s: status %d %s", c.url(), c.revisit, format, rec.Code, rec.Body)
					}
				}
			}
			if revisits != 1 {
				t.Errorf("%d revisits, want the repeated payload's one", revisits)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
