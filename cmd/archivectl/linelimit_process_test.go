package main

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/public"
)

// TestLongHeaderLine runs the binary over a page whose response carries a legal 250,000-character
// header field (of '<', which JSON writes as six bytes each): its CDXJ lines are cut to
// public.MaxLineBytes and marked, its WARC records keep the field whole, verify passes, and
// after reindex-public the lookup still lists the capture (not a 404).
func TestLongHeaderLine(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	big := strings.Repeat("<", 250000)
	o := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("X-Big", big)
		w.Write([]byte("<html><body>LONG-HEADER-PAGE</body></html>"))
	}))
	t.Cleanup(o.Close)
	data := t.TempDir()
	if r := waitCrawl(t, crawlCmd(t, exe, data, []string{o.URL + "/"}, "", "--delay", "0s")); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s\n%.3000s", r.code, r.stdout, r.stderr)
	}
	pub := filepath.Join(data, "public")
	for _, days := range []int{0, 400} { // a tombstone, then the release
		now := time.Now().UTC().Add(time.Duration(days) * 24 * time.Hour)
		mustRun(t, exe, "release", "--data", data, "--now", now.Format(time.RFC3339))
		mustRun(t, exe, "verify", "--data", data)
	}
	cdxjs, _ := filepath.Glob(filepath.Join(pub, "*", "*.cdxj"))
	states := map[string]bool{}
	for _, name := range cdxjs {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n") {
			if !strings.Contains(line, "X-Big") {
				continue
			}
			if len(line) > public.MaxLineBytes {
				t.Errorf("%s: a line of %d bytes, the limit is %d", name, len(line), public.MaxLineBytes)
			}
			l, err := public.ParseLine([]byte(line))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !l.HeadersTruncated {
				t.Errorf("%s: a line of %d bytes with its headers cut lacks headers_truncated", name, len(line))
			}
			states[l.State] = true
		}
	}
	if !states[public.StateTombstone] || !states[public.StateReleased] {
		t.Errorf("lines with the long header: %v, want a tombstone and a release", states)
	}
	shards, _ := filepath.Glob(filepath.Join(pub, "shards", "*.warc.gz"))
	var whole bool
	for _, name := range shards {
		b, _ := os.ReadFile(name)
		if strings.Contains(string(testkit.Gunzip(t, b)), "X-Big: "+big+"\r\n") {
			whole = true
		}
	}
	if !whole {
		t.Error("no public shard holds the X-Big field whole")
	}
	mustRun(t, exe, "reindex-public", "--data", data)
	mustRun(t, exe, "verify", "--data", data)
	s := startServe(t, exe, "--data", data)
	var ans struct {
		Captures []struct {
			State string `json:"state"`
		} `json:"captures"`
	}
	code, body := s.get(t, "/api/v1/captures?url="+url.QueryEscape(o.URL+"/"), &ans)
	if code != http.StatusOK || len(ans.Captures) != 1 || ans.Captures[0].State != public.StateReleased {
		t.Errorf("lookup: %d %+v, want 200 and one released capture\n%.500s", code, ans, body)
	}
}
