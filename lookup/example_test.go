package lookup_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/lookup"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// An archive UI asks the lookup what exists for a URL: here a capture under embargo, of which
// only a tombstone is public.
func ExampleServer() {
	dir, _ := os.MkdirTemp("", "lookup-example")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "tombstones"), 0o755)
	const u = "https://quarterly.example/sale"
	key, _ := surt.Key(u)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	line, _ := public.FormatLine(key, at, public.CDXJ{URL: u, Mime: "text/html", Status: 200,
		Digest: "sha256:" + fmt.Sprintf("%064x", 2), Length: 400, Filename: "TOMB-20260301120000-00001.warc.gz",
		ReleaseAt: at.Add(90 * 24 * time.Hour).Format(time.RFC3339Nano), ID: "<urn:uuid:0c4f5b0e-6f1d-4c1e-9a57-2a0d5e6f7a8b>",
		State: public.StateTombstone, Time: at.Format(time.RFC3339Nano)})
	os.WriteFile(filepath.Join(dir, "tombstones", "TOMB-20260301120000-00001.cdxj"), line, 0o644)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	pubindex.Rebuild(context.Background(), dir, 1, quiet)

	srv, err := lookup.Open(dir, lookup.Options{Logger: quiet, Now: func() time.Time { return at.Add(24 * time.Hour) }})
	if err != nil {
		fmt.Println(err)
		return
	}
	web := httptest.NewServer(srv)
	defer web.Close()
	resp, err := http.Get(web.URL + "/api/v1/captures?url=" + url.QueryEscape(u))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var answer struct {
		Captures []struct {
			State     string `json:"state"`
			ReleaseAt string `json:"release_at"`
		} `json:"captures"`
	}
	json.NewDecoder(resp.Body).Decode(&answer)
	for _, c := range answer.Captures {
		fmt.Println(resp.StatusCode, c.State, "until", c.ReleaseAt)
	}
	// Output: 200 embargoed until 2026-05-30T12:00:00Z
}
