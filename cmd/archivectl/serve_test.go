package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crawledAndReleased crawls two loopback sites into a data directory and runs one release pass
// at the real time: everything on the embargoed site gets a tombstone, the open site is released.
func crawledAndReleased(t *testing.T) (data, embargoed, open string) {
	t.Helper()
	data, embargoed, open = crawled(t)
	var out, errb strings.Builder
	if code := runRelease(context.Background(), []string{"--data", data}, nil, &out, &errb); code != 0 {
		t.Fatalf("release: exit %d\n%s", code, errb.String())
	}
	return data, embargoed, open
}

// crawled crawls two loopback sites into a new data directory: one under a month's embargo
// (Archive-Embargo: m), one open.
func crawled(t *testing.T) (data, embargoed, open string) {
	t.Helper()
	site := func(robots string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/robots.txt":
				io.WriteString(w, robots)
			case "/":
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Usage", "train-ai=n")
				io.WriteString(w, `<html><body><a href="/page">page</a> BODY OF `+r.Host+`</body></html>`)
			default:
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, "<html><body>a page</body></html>")
			}
		}))
		t.Cleanup(s.Close)
		return s
	}
	emb := site("User-Agent: *\nArchive-Embargo: m\nAllow: /\n")
	opn := site("User-Agent: *\nAllow: /\n")
	data = filepath.Join(t.TempDir(), "data")
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte(emb.URL+"/\n"+opn.URL+"/\n"), 0o644)
	var out, errb strings.Builder
	if code := runCrawl(context.Background(), []string{"--data", data, "--delay", "0s", seeds}, nil, &out, &errb); code != 0 {
		t.Fatalf("crawl: exit %d\n%s", code, errb.String())
	}
	return data, emb.URL + "/", opn.URL + "/"
}

// server is a running archivectl serve.
type server struct {
	cmd    *exec.Cmd
	base   string
	stderr *bytes.Buffer
	done   chan error
}

// startServe runs the built binary's serve on a free loopback port and waits until it listens.
func startServe(t *testing.T, exe string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(exe, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	go func() { s.done <- cmd.Wait() }()
	select {
	case l, ok := <-lines:
		if !ok || !strings.HasPrefix(l, "archivectl serve: http://127.0.0.1:") {
			t.Fatalf("serve printed %q, not its address; stderr:\n%s", l, s.stderr)
		}
		s.base = strings.TrimSuffix(strings.TrimPrefix(l, "archivectl serve: "), "/")
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not start listening; stderr:\n%s", s.stderr)
	}
	return s
}

// get fetches path from the server and decodes a JSON body into v when v is not nil.
func (s *server) get(t *testing.T, path string, v any) (int, string) {
	t.Helper()
	resp, err := http.Get(s.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if v != nil {
		json.Unmarshal(b, v)
	}
	return resp.StatusCode, string(b)
}

// stop sends sig and returns the exit code.
func (s *server) stop(t *testing.T, sig os.Signal) int {
	t.Helper()
	s.cmd.Process.Signal(sig)
	select {
	case err := <-s.done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(40 * time.Second):
		t.Fatalf("serve did not exit after %v; stderr:\n%s", sig, s.stderr)
		return -1
	}
}

type capturesAnswer struct {
	Captures []struct {
		State     string          `json:"state"`
		ReleaseAt string          `json:"release_at"`
		Headers   [][2]string     `json:"headers"`
		Usage     []string        `json:"content_usage"`
		WARC      json.RawMessage `json:"warc"`
	} `json:"captures"`
}

// TestServeBinary: over a data directory built by a real crawl and release pass, the built
// command answers the API, the page and /metrics on loopback, and exits 0 on SIGTERM.
func TestServeBinary(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data, embargoed, open := crawledAndReleased(t)
	s := startServe(t, exe, "--data", data)

	var a capturesAnswer
	code, body := s.get(t, "/api/v1/captures?url="+url.QueryEscape(embargoed), &a)
	if code != 200 || len(a.Captures) != 1 || a.Captures[0].State != "embargoed" || a.Captures[0].ReleaseAt == "" ||
		len(a.Captures[0].Headers) == 0 || fmt.Sprint(a.Captures[0].Usage) != "[train-ai=n]" || a.Captures[0].WARC != nil {
		t.Errorf("embargoed site: %d %s", code, body)
	}
	if strings.Contains(body, "BODY OF") {
		t.Error("the API leaked an embargoed body")
	}
	code, body = s.get(t, "/api/v1/captures?url="+url.QueryEscape(open), &a)
	if code != 200 || len(a.Captures) != 1 || a.Captures[0].State != "released" || a.Captures[0].WARC == nil {
		t.Errorf("open site: %d %s", code, body)
	}
	if code, body = s.get(t, "/api/v1/record?format=payload&url="+url.QueryEscape(open), nil); code != 200 || !strings.Contains(body, "BODY OF") {
		t.Errorf("open site payload: %d %q", code, body)
	}
	if code, _ = s.get(t, "/api/v1/record?url="+url.QueryEscape(embargoed), nil); code != 451 {
		t.Errorf("embargoed record: status %d, want 451", code)
	}
	if code, body = s.get(t, "/?url="+url.QueryEscape(embargoed), nil); code != 200 || !strings.Contains(body, `class="countdown">in 3`) {
		t.Errorf("page: %d, countdown missing:\n%s", code, body)
	}
	code, body = s.get(t, "/metrics", nil)
	for _, m := range []string{`archivectl_lookup_requests_total{code="200",route="captures"} 2`, `archivectl_lookup_captures_loaded{state="embargoed"}`, "go_goroutines"} {
		if !strings.Contains(body, m) {
			t.Errorf("/metrics (%d) lacks %q", code, m)
		}
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0; stderr:\n%s", code, s.stderr)
	}
}

// TestServeSchedule: with --schedule the command runs release passes itself, and the lookup
// picks up each new generation without a restart; SIGINT stops both and exits 0.
func TestServeSchedule(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data, embargoed, _ := crawled(t) // nothing public yet: the daemon must publish it
	s := startServe(t, exe, "--data", data, "--schedule", "@every 1s")
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, _ := s.get(t, "/api/v1/captures?url="+url.QueryEscape(embargoed), nil)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no tombstone served 20 s after start with --schedule; stderr:\n%s", s.stderr)
		}
		time.Sleep(100 * time.Millisecond) // polling a separate process; the pass runs on its own clock
	}
	// The daemon counts a pass when Pass returns, a moment after its commit became visible.
	for {
		_, metrics := s.get(t, "/metrics", nil)
		if strings.Contains(metrics, `archivectl_release_passes_total{result="ok"}`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics lacks the releaser's pass counter 20 s after start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code := s.stop(t, os.Interrupt); code != 0 {
		t.Errorf("exit %d after SIGINT, want 0; stderr:\n%s", code, s.stderr)
	}
}

func TestServeBadUsage(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() }) // after the parallel subtests
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad schedule", []string{"--schedule", "every tuesday"}, 2, "not a cron spec"},
		{"stray argument", []string{"extra"}, 2, "unexpected argument"},
		{"unknown flag", []string{"--port", "80"}, 2, "flag provided but not defined"},
		{"port out of range", []string{"--listen", "127.0.0.1:-1"}, 2, "the port is a number from 0 to 65535"},
		{"address in use", []string{"--init", "--listen", busy.Addr().String()}, 1, "cannot listen on"},
		{"no archive", []string{"--listen", "127.0.0.1:0"}, 1, "does not exist: no archive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb strings.Builder
			args := append([]string{"--data", filepath.Join(t.TempDir(), "d")}, tc.args...)
			if code := runServe(context.Background(), args, nil, &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, errb.String())
			}
		})
	}
}
