package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/objectstore/s3store"
	"github.com/archivectl/archivectl/test/pubtest"
	"github.com/archivectl/archivectl/test/seaweedfs"
)

// faultProxy stands between archivectl and SeaweedFS on loopback. Its mode says what it does
// to the n-th object upload (PUT) and every one after it: forward it, answer 500, cut the
// connection halfway through the body, or run a hook (stop the server) and then forward it.
type faultProxy struct {
	url   string
	rp    *httputil.ReverseProxy
	mu    sync.Mutex
	mode  string // "", "500", "cut", "hook"
	after int64  // uploads forwarded before the fault starts
	hook  func()
	puts  atomic.Int64
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	u, _ := url.Parse(target)
	p := &faultProxy{rp: httputil.NewSingleHostReverseProxy(u)}
	p.rp.ErrorLog = log.New(io.Discard, "", 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: p}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	p.url = "http://" + ln.Addr().String()
	return p
}

func (p *faultProxy) set(mode string, after int64, hook func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode, p.after, p.hook = mode, after, hook
	p.puts.Store(0)
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	mode, after, hook := p.mode, p.after, p.hook
	p.mu.Unlock()
	if r.Method == http.MethodPut && mode != "" && p.puts.Add(1) > after {
		switch mode {
		case "500":
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`<?xml version="1.0"?><Error><Code>InternalError</Code><Message>injected</Message></Error>`))
			return
		case "cut":
			buf := make([]byte, max(r.ContentLength/2, 1))
			r.Body.Read(buf)
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				c.Close()
			}
			return
		case "hook":
			hook()
		}
	}
	p.rp.ServeHTTP(w, r)
}

// setAWS points this process's AWS environment at endpoint as id.
func setAWS(t *testing.T, srv *seaweedfs.Server, id seaweedfs.Identity, endpoint string) {
	srv.Setenv(t, id)
	t.Setenv("AWS_ENDPOINT_URL", endpoint)
}

// bucketState is every node's latest generation and the object count of a bucket.
func bucketState(t *testing.T, srv *seaweedfs.Server, bucket string) (map[string]int64, int) {
	t.Helper()
	setAWS(t, srv, seaweedfs.Writer, srv.Endpoint)
	loc, _ := objectstore.ParseLocation("s3://" + bucket + "/pub")
	s, err := s3store.Open(context.Background(), loc, s3store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	committed, err := publish.Committed(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	latest := map[string]int64{}
	for n, g := range committed {
		latest[n] = g[len(g)-1]
	}
	if problems, err := publish.Verify(context.Background(), s, true); err != nil || len(problems) > 0 {
		t.Fatalf("the bucket's latest generations: %v %v", problems, err)
	}
	objs, err := s.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return latest, len(objs)
}

// TestReleaseToS3Faults runs `archivectl release --public s3://…` against SeaweedFS through
// faults: each is exit 1 with one line, no generation but the last good one visible, and the
// next pass publishes everything with nothing left over.
func TestReleaseToS3Faults(t *testing.T) {
	srv := seaweedfs.Start(t)
	srv.CreateBucket(t, "faults")
	proxy := newFaultProxy(t, srv.Endpoint)
	data := t.TempDir()
	pubtest.Seal(t, data, "a.example", 40, 20000)
	release := func(days int, args ...string) (string, string, int) {
		now := pubtest.T0.Add(time.Duration(days) * 24 * time.Hour).Format(time.RFC3339)
		return runIn(t, append([]string{"release", "--data", data, "--public", "s3://faults/pub", "--node", "n1", "--now", now}, args...)...)
	}
	setAWS(t, srv, seaweedfs.Writer, proxy.url)
	if _, stderr, code := release(0); code != 0 {
		t.Fatalf("the first pass: exit %d: %s", code, stderr)
	}
	good, _ := bucketState(t, srv, "faults")

	tests := []struct {
		name  string
		setup func(t *testing.T)
		want  string
	}{
		{"wrong secret", func(t *testing.T) { t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong") }, "the credentials were refused"},
		{"read-only identity", func(t *testing.T) { setAWS(t, srv, seaweedfs.Reader, proxy.url) }, "access denied"},
		{"missing bucket", func(t *testing.T) {}, "bucket no-such-bucket does not exist"},
		{"unreachable endpoint", func(t *testing.T) { t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1") }, "cannot reach the endpoint http://127.0.0.1:1"},
		{"500 mid-upload", func(t *testing.T) { proxy.set("500", 2, nil) }, "the store failed (HTTP 500"},
		{"connection cut mid-upload", func(t *testing.T) { proxy.set("cut", 2, nil) }, "failed, retries included"},
		{"SeaweedFS stopped mid-pass", func(t *testing.T) { proxy.set("hook", 3, func() { srv.Kill() }) }, "put "},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Each pass has something new to publish: a crawl of ten more pages the day before.
			pubtest.SealAt(t, data, fmt.Sprintf("s%d.example", i), 10, 20000, pubtest.T0.Add(time.Duration(8+i-1)*24*time.Hour))
			setAWS(t, srv, seaweedfs.Writer, proxy.url)
			tc.setup(t)
			args := []string{}
			if tc.name == "missing bucket" {
				args = []string{"--public", "s3://no-such-bucket/pub"}
			}
			start := time.Now()
			stdout, stderr, code := release(8+i, args...)
			if code != 1 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q (stdout %q); want 1 and one line saying %q", code, stderr, stdout, tc.want)
			}
			for _, secret := range []string{seaweedfs.WriterSecret, seaweedfs.ReaderSecret, "wrong"} {
				if strings.Contains(stdout+stderr, secret) && secret != "wrong" || strings.Contains(stderr, "="+secret) {
					t.Errorf("the output holds a secret: %q", stderr)
				}
			}
			t.Logf("%s: failed in %s: %s", tc.name, time.Since(start).Round(time.Millisecond), strings.TrimSpace(stderr))
			proxy.set("", 0, nil)
			if tc.name == "SeaweedFS stopped mid-pass" {
				srv.Restart(t)
			}
			if latest, _ := bucketState(t, srv, "faults"); latest["n1"] != good["n1"] {
				t.Fatalf("generation %d visible after the failure, want the last good one, %d", latest["n1"], good["n1"])
			}
			setAWS(t, srv, seaweedfs.Writer, proxy.url)
			if _, stderr, code := release(8 + i); code != 0 {
				t.Fatalf("the next pass: exit %d: %s", code, stderr)
			}
			latest, objects := bucketState(t, srv, "faults")
			if latest["n1"] <= good["n1"] {
				t.Fatalf("the next pass left generation %d, want more than %d", latest["n1"], good["n1"])
			}
			good = latest
			_, again := bucketState(t, srv, "faults")
			if again != objects {
				t.Fatalf("objects %d, then %d", objects, again)
			}
		})
	}
	// After all that, the bucket is the data directory's public/, byte for byte, nothing left over.
	setAWS(t, srv, seaweedfs.Writer, srv.Endpoint)
	loc, _ := objectstore.ParseLocation("s3://faults/pub")
	s, err := s3store.Open(context.Background(), loc, s3store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := publish.Latest(context.Background(), s, "n1")
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]bool{}
	for _, g := range []int64{m.Generation} {
		mf, _ := publish.ReadManifest(context.Background(), s, "n1", g)
		for _, f := range append(mf.Files, mf.Log...) {
			live[publish.NodePrefix("n1")+f.Object] = true
		}
	}
	committed, _ := publish.Committed(context.Background(), s)
	for _, g := range committed["n1"] {
		mf, _ := publish.ReadManifest(context.Background(), s, "n1", g)
		for _, f := range append(mf.Files, mf.Log...) {
			live[publish.NodePrefix("n1")+f.Object] = true
		}
	}
	objs, _ := s.List(context.Background(), publish.NodePrefix("n1"))
	for _, o := range objs {
		if !live[o.Name] {
			t.Errorf("garbage left: %s", o.Name)
		}
	}
	t.Logf("generation %d: %d files, %d log parts", m.Generation, len(m.Files), len(m.Log))

	// verify checks the bucket too: whole, then with an object of the latest generation gone.
	verify := func() (string, int) {
		stdout, stderr, code := runIn(t, "verify", "--data", data, "--public", "s3://faults/pub")
		return stdout + stderr, code
	}
	if out, code := verify(); code != 0 {
		t.Fatalf("verify of a whole bucket: exit %d\n%s", code, out)
	}
	gone := publish.NodePrefix("n1") + m.Files[0].Object
	if err := s.Delete(context.Background(), gone); err != nil {
		t.Fatal(err)
	}
	if out, code := verify(); code != 1 || !strings.Contains(out, "shared: node n1 generation") || !strings.Contains(out, gone) {
		t.Fatalf("verify with %s gone: exit %d\n%s", gone, code, out)
	}
}

// syncBuffer is a bytes.Buffer that a server's goroutines may write while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeScheduleRetriesPublishing: the release daemon, its store answering 500, logs each
// failed pass in one line and publishes at a later tick once the store is back.
func TestServeScheduleRetriesPublishing(t *testing.T) {
	srv := seaweedfs.Start(t)
	srv.CreateBucket(t, "daemon")
	proxy := newFaultProxy(t, srv.Endpoint)
	data := t.TempDir()
	pubtest.Seal(t, data, "a.example", 10, 1000)
	setAWS(t, srv, seaweedfs.Writer, proxy.url)
	proxy.set("500", 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--schedule", "@every 1s",
			"--public", "s3://daemon/pub", "--node", "d1"}, strings.NewReader(""), &stdout, &stderr)
	}()
	wait := func(what string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(stderr.String(), what) {
			if time.Now().After(deadline) {
				cancel()
				t.Fatalf("no %q in the daemon's log:\n%s", what, stderr.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	wait(`msg="release pass failed"`)
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "release pass failed") && !strings.Contains(l, "the store failed (HTTP 500") {
			t.Errorf("the failed pass's line does not say why: %s", l)
		}
	}
	proxy.set("", 0, nil)
	wait(`msg="public generation published"`)
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	if latest, _ := bucketState(t, srv, "daemon"); latest["d1"] == 0 {
		t.Fatal("nothing published")
	}
}
