package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/archivectl/archivectl/crawler"
)

// TestCrawlHandsOff: two nodes sharing a file:// store; the page of node A's origin embeds an
// image of node B's origin. Node A writes it into a hand-off batch for B instead of fetching
// it; node B's crawl fetches it once and consumes the batch; each summary says so. The batches
// go to the public store, or to handoff.store when it is set, and then nothing of them to the
// public one.
func TestCrawlHandsOff(t *testing.T) {
	t.Parallel()
	for _, own := range []bool{false, true} {
		t.Run(map[bool]string{false: "in the public store", true: "in a store of their own"}[own], func(t *testing.T) {
			t.Parallel()
			crawlHandsOff(t, own)
		})
	}
}

func crawlHandsOff(t *testing.T, ownStore bool) {
	var imgs atomic.Int32
	var servers [2]*httptest.Server
	for servers[0] == nil || servers[1] == nil {
		srv := httptest.NewServer(nil)
		u, _ := url.Parse(srv.URL)
		if k := crawler.OriginPartition(u, 2); servers[k] == nil {
			servers[k] = srv
			t.Cleanup(srv.Close)
			continue
		}
		srv.Close()
	}
	page, img := servers[0], servers[1]
	page.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<img src="` + img.URL + `/i.png">`))
	})
	img.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nAllow: /\n"))
		case "/i.png":
			imgs.Add(1)
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("png"))
		default:
			w.Write([]byte("home"))
		}
	})
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seeds, []byte(page.URL+"/\n"+img.URL+"/\n"), 0o644)
	public, shared := filepath.Join(dir, "public"), filepath.Join(dir, "public")
	os.MkdirAll(public, 0o755)
	settings := "handoff:\n  interval: 50ms\n  linger: 200ms\n"
	if ownStore {
		shared = filepath.Join(dir, "crawl-only")
		os.MkdirAll(shared, 0o755)
		settings += "  store: file://" + shared + "\n"
	}
	conf := filepath.Join(dir, "archivectl.yaml")
	os.WriteFile(conf, []byte(settings), 0o644)
	crawl := func(k string) string {
		t.Helper()
		stdout, stderr, code := runIn(t, "crawl", "--config", conf, "--data", filepath.Join(dir, "node-"+k), "--delay", "0s",
			"--partition", k+"/2", "--public", "file://"+public, "--node", "crawl-"+k, seeds)
		if code != 0 {
			t.Fatalf("node %s: exit %d\n%s", k, code, stderr)
		}
		return stdout
	}
	if out := crawl("0"); !strings.Contains(out, "hand-off     1 URLs handed to their nodes, 0 taken") || imgs.Load() != 0 {
		t.Fatalf("node 0 (image fetched %d times):\n%s", imgs.Load(), out)
	}
	if m, _ := filepath.Glob(filepath.Join(shared, "handoff", "1", "crawl-0-*.jsonl")); len(m) != 1 {
		t.Fatalf("hand-off batches for partition 1: %v", m)
	}
	if _, err := os.Stat(filepath.Join(public, "handoff")); ownStore && !os.IsNotExist(err) {
		t.Errorf("with handoff.store set, the public store has handoff/ (%v)", err)
	}
	if out := crawl("1"); !strings.Contains(out, "hand-off     0 URLs handed to their nodes, 1 taken") || imgs.Load() != 1 {
		t.Fatalf("node 1 (image fetched %d times):\n%s", imgs.Load(), out)
	}
	if m, _ := filepath.Glob(filepath.Join(shared, "handoff", "1", "*")); len(m) != 0 {
		t.Errorf("batches left after node 1 read them: %v", m)
	}
}

// TestCrawlHandOffBadSettings: a node name that cannot name hand-off batches, or a
// handoff.store that is no store, is bad usage, said in one line.
func TestCrawlHandOffBadSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seeds, []byte("http://127.0.0.1:1/\nhttp://127.0.0.1:2/\nhttp://127.0.0.1:3/\n"), 0o644)
	conf := filepath.Join(dir, "bad-store.yaml")
	os.WriteFile(conf, []byte("handoff:\n  store: ftp://somewhere/x\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"node name", []string{"--node", "Crawl_0"}, `invalid --node "Crawl_0"`},
		{"store", []string{"--config", conf}, "handoff.store"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"crawl", "--data", filepath.Join(t.TempDir(), "d"), "--partition", "0/2", "--public", "file://" + dir}, tc.args...)
			_, stderr, code := runIn(t, append(args, seeds)...)
			if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want 2 and one line saying %q", code, stderr, tc.want)
			}
		})
	}
}
