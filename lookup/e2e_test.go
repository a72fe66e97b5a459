package lookup

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// sealCapture is a 200 HTML capture of raw at `at` under period p.
func sealCapture(raw, body string, at time.Time, p embargo.Period) store.Capture {
	u, _ := url.Parse(raw)
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: archivectl-test\r\n\r\n", u.RequestURI(), u.Host)
	resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	return store.Capture{URL: raw, Time: at, IP: "127.0.0.1", Request: []byte(req), Response: []byte(resp),
		Period: p, Usage: []string{"train-ai=n"}, UsageHeader: []string{"train-ai=n"}}
}

// The lookup over a public side written by the real store and releaser: an embargoed capture
// shows its tombstone until a later pass releases it, and then its record is served byte for byte.
func TestOverRealRelease(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	st, err := store.Open(dir, store.Options{Logger: discard, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "<p>SECRET month-embargoed body</p>"
	if _, err := st.Seal(context.Background(), []store.Capture{
		sealCapture("https://site.example/news/1", secret, t0, embargo.Month),
		sealCapture("https://site.example/open", "<p>free to publish</p>", t0.Add(time.Second), embargo.None),
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	rel := release.New(dir, release.Options{Logger: discard})
	if _, err := rel.Pass(context.Background(), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(2 * time.Hour)
	s, err := Open(filepath.Join(dir, "public"), Options{Logger: discard, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}

	var news capturesJSON
	decode(t, get(t, s, "/api/v1/captures?url=http://www.site.example/news/1/").Body, &news)
	if len(news.Captures) != 1 {
		t.Fatalf("news/1: %+v", news)
	}
	c := news.Captures[0]
	if c.State != "embargoed" || c.ReleaseAt != "2026-12-02T12:00:00Z" || c.WARC != nil ||
		!bytes.Contains(c.Headers, []byte(`"Content-Type","text/html; charset=utf-8"`)) || len(c.ContentUsage) != 1 {
		t.Errorf("embargoed capture = %+v headers %s", c, c.Headers)
	}
	if rec := get(t, s, "/api/v1/record?url=https://site.example/news/1"); rec.Code != 451 {
		t.Errorf("embargoed record: status %d, want 451", rec.Code)
	}
	page := get(t, s, "/?url=site.example/news/1").Body.String()
	if !bytes.Contains([]byte(page), []byte("in 30 days 22 hours")) || bytes.Contains([]byte(page), []byte("SECRET")) {
		t.Errorf("page lacks the countdown or shows the body")
	}
	if rec := get(t, s, "/api/v1/record?format=payload&url=https://site.example/open"); rec.Code != 200 || rec.Body.String() != "<p>free to publish</p>" {
		t.Errorf("released payload: status %d body %q", rec.Code, rec.Body)
	}

	// A month later the next pass releases it; the lookup sees the new generation and serves it.
	if _, err := rel.Pass(context.Background(), t0.AddDate(0, 0, 32)); err != nil {
		t.Fatal(err)
	}
	now = t0.AddDate(0, 0, 32) // the lookup streams nothing its own clock says is still embargoed
	if reloaded, err := s.Refresh(); err != nil || !reloaded {
		t.Fatalf("Refresh = %v, %v", reloaded, err)
	}
	decode(t, get(t, s, "/api/v1/captures?url=https://site.example/news/1").Body, &news)
	if len(news.Captures) != 1 || news.Captures[0].State != "released" || news.Captures[0].WARC == nil {
		t.Fatalf("after release: %+v", news)
	}
	c = news.Captures[0]
	if !bytes.Contains(c.Headers, []byte("Content-Type")) {
		t.Errorf("released capture lost its tombstone headers: %s", c.Headers)
	}
	rec := get(t, s, "/api/v1/record?format=payload&url=https://site.example/news/1")
	if rec.Code != 200 || rec.Body.String() != secret || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("payload: status %d type %q body %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	shard, err := os.ReadFile(filepath.Join(dir, "public", c.WARC.File))
	if err != nil {
		t.Fatal(err)
	}
	rec = get(t, s, "/api/v1/record?format=warc.gz&url=https://site.example/news/1")
	if !bytes.Equal(rec.Body.Bytes(), shard[c.WARC.Offset:c.WARC.Offset+c.WARC.Length]) {
		t.Error("warc.gz answer is not the public member byte for byte")
	}
}
