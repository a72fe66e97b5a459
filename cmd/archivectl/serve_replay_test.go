package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/archivectl/archivectl/lookup"
)

// openAsPage is the card's "Open as page" link.
var openAsPage = regexp.MustCompile(`<a class="replay" href="([^"]+)">Open as page</a>`)

// TestServeReplayURL: through the built binary over a real crawl and release pass, a released
// page's card links "Open as page" into the ReplayWeb.page instance --replay-url names (the
// public instance without the flag, no link with off), its source the page's own WACZ on this
// server (/api/v1/wacz?url=…&timestamp=…), which answers a WACZ of that page; the raw record
// stays one click away, and the embargoed site's card has no such link.
func TestServeReplayURL(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data, embargoed, open := crawledAndReleased(t)
	for _, tc := range []struct {
		name string
		args []string
		want string // the instance the link opens; "" for no link
	}{
		{"default", nil, lookup.DefaultReplayURL},
		{"configured", []string{"--replay-url", "http://127.0.0.1:9/rwp/"}, "http://127.0.0.1:9/rwp/"},
		{"off", []string{"--replay-url", "off"}, ""},
	} {
		// One server at a time over the one data directory.
		s := startServe(t, exe, append([]string{"--data", data}, tc.args...)...)
		code, page := s.get(t, "/?url="+url.QueryEscape(open), nil)
		if code != 200 || !strings.Contains(page, "WARC record</a>") {
			t.Errorf("%s: the open site's card: %d, or no raw record link", tc.name, code)
		}
		m := openAsPage.FindStringSubmatch(page)
		switch {
		case tc.want == "" && m != nil:
			t.Errorf("%s: the card links %q", tc.name, m[1])
		case tc.want != "" && m == nil:
			t.Errorf("%s: the released page's card has no Open as page link:\n%s", tc.name, page)
		case tc.want != "":
			link, err := url.Parse(html.UnescapeString(m[1]))
			if err != nil || !strings.HasPrefix(link.String(), tc.want+"?source=") {
				t.Fatalf("%s: Open as page links %q, want into %s", tc.name, m[1], tc.want)
			}
			src, err := url.Parse(link.Query().Get("source"))
			frag, _ := url.ParseQuery(link.Fragment)
			if err != nil || src.Scheme+"://"+src.Host != s.base || src.Path != "/api/v1/wacz" || src.Query().Get("url") != open ||
				len(src.Query().Get("timestamp")) != 14 || frag.Get("view") != "replay" || frag.Get("url") != open ||
				frag.Get("ts") != src.Query().Get("timestamp") {
				t.Errorf("%s: Open as page %s: source %v, fragment %v, want this server's WACZ of %s", tc.name, link, src, frag, open)
			}
			code, body := s.get(t, src.RequestURI(), nil)
			zr, err := zip.NewReader(bytes.NewReader([]byte(body)), int64(len(body)))
			if code != 200 || err != nil {
				t.Errorf("%s: the link's source %s answers %d, not a WACZ: %v", tc.name, src.RequestURI(), code, err)
			} else if !hasFile(zr, "datapackage.json") || !hasFile(zr, "pages/pages.jsonl") {
				t.Errorf("%s: the WACZ of %s lacks datapackage.json or pages/pages.jsonl", tc.name, open)
			}
		}
		if _, page := s.get(t, "/?url="+url.QueryEscape(embargoed), nil); openAsPage.MatchString(page) {
			t.Errorf("%s: the embargoed site's card has an Open as page link", tc.name)
		}
		if code := s.stop(t, syscall.SIGTERM); code != 0 {
			t.Errorf("%s: exit %d after SIGTERM; stderr:\n%s", tc.name, code, s.stderr)
		}
	}
}

// hasFile reports whether the zip holds a file of that name.
func hasFile(zr *zip.Reader, name string) bool {
	for _, f := range zr.File {
		if f.Name == name {
			return true
		}
	}
	return false
}

// TestServeShards: the built serve answers GET /shards/NAME, the file its captures answer names,
// by the range the answer gives (206, the shard's bytes there, with CORS), and refuses a name
// that climbs out of public/shards.
func TestServeShards(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data, _, open := crawledAndReleased(t)
	s := startServe(t, exe, "--data", data)
	var a capturesAnswer
	if code, body := s.get(t, "/api/v1/captures?url="+url.QueryEscape(open), &a); code != 200 || len(a.Captures) == 0 || a.Captures[0].WARC == nil {
		t.Fatalf("open site: %d %s", code, body)
	}
	var w struct {
		File           string
		Offset, Length int64
	}
	if err := json.Unmarshal(a.Captures[0].WARC, &w); err != nil {
		t.Fatal(err)
	}
	shard, err := os.ReadFile(filepath.Join(data, "public", filepath.FromSlash(w.File)))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/"+w.File, nil)
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", w.Offset, w.Offset+w.Length-1))
	req.Header.Set("Origin", "https://replay.example.org")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, shard[w.Offset:w.Offset+w.Length]) || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("GET /%s by range: %d, %d bytes, CORS %q; want 206 and the shard's %d bytes there", w.File, resp.StatusCode, len(got), resp.Header.Get("Access-Control-Allow-Origin"), w.Length)
	}
	if code, body := s.get(t, "/shards/..%2F..%2Fstate.json", nil); code != http.StatusNotFound {
		t.Errorf("a name out of public/shards: %d %.100s", code, body)
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d after SIGTERM; stderr:\n%s", code, s.stderr)
	}
}
