package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/crawler/offsite"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/test/seaweedfs"
)

// TestCrawlRestoredFromSealedBucket drives the binary against a real SeaweedFS: a crawl with
// sealed: s3://… is killed with SIGKILL mid-way, once a checkpoint is in the sealed bucket, and
// its data directory deleted; `crawl --restore` into a new empty directory rebuilds it from the
// bucket and finishes. Every page is then sealed exactly once (nothing in the checkpoint is
// fetched again, everything after it is), a pass at +8 days releases each page of the open
// origin exactly once and nothing of the embargoed one, and verify exits 0. The node's
// environment holds the lookup's credentials, which get 403 from the sealed bucket: the
// sealed store is reached only through the profile of sealed_store.
func TestCrawlRestoredFromSealedBucket(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	srv := seaweedfs.Start(t)
	srv.CreateBucket(t, "sealed")
	srv.CreateBucket(t, seaweedfs.PublicBucket)

	const n = 30 // pages per origin
	gate := make(chan struct{})
	var served atomic.Int32
	var open sync.Once
	site := func(name, robots string) *crawlertest.Server {
		pages := map[string]string{"/robots.txt": robots, "/": `<a href="/p/0">start</a>`}
		for i := range n {
			pages[fmt.Sprintf("/p/%d", i)] = fmt.Sprintf(`<p>marker-%s-%d</p><a href="/p/%d">next</a>`, name, i, i+1)
		}
		s := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/robots.txt" && served.Add(1) > n/2 {
				<-gate // the first crawl stops here until it is killed
			}
			time.Sleep(10 * time.Millisecond)
			crawlertest.Pages(pages).ServeHTTP(w, r)
		}))
		t.Cleanup(s.Close)
		return s
	}
	free := site("free", "User-agent: *\nAllow: /\n")
	held := site("held", "User-agent: *\nArchive-Embargo: q\nAllow: /\n")
	t.Cleanup(func() { open.Do(func() { close(gate) }) }) // before the servers close
	seeds := []string{free.URL + "/", held.URL + "/"}

	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials")
	os.WriteFile(creds, fmt.Appendf(nil, "[sealed]\naws_access_key_id = %s\naws_secret_access_key = %s\n", seaweedfs.WriterKey, seaweedfs.WriterSecret), 0o600)
	env := append(os.Environ(), srv.Env(seaweedfs.Public)...)
	env = append(env, "AWS_SHARED_CREDENTIALS_FILE="+creds)
	yaml := fmt.Sprintf("sealed: s3://sealed/node-1\nsealed_store:\n  profile: sealed\n  endpoint: %s\n  checkpoint: 200ms\n", srv.Endpoint)

	first := filepath.Join(dir, "first")
	cmd := crawlCmd(t, exe, first, seeds, yaml, "--delay", "0s")
	cmd.Env = env
	var firstErr bytes.Buffer
	cmd.Stderr = &firstErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Every request of the test's own is bounded: a store that stops answering fails the test.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	writer := srv.Client(seaweedfs.Writer)
	manifests := func() []string {
		out, err := writer.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("sealed"), Prefix: aws.String("node-1/" + offsite.CheckpointPrefix)})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, o := range out.Contents {
			if strings.HasSuffix(aws.ToString(o.Key), ".json") {
				names = append(names, aws.ToString(o.Key))
			}
		}
		return names
	}
	// Kill once the crawl waits at the gate and a checkpoint taken since is in the bucket.
	wait := func(what string, done func() bool) {
		for deadline := time.Now().Add(30 * time.Second); !done(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%s after 30 s (%d pages served)\n%s", what, served.Load(), firstErr.String())
			}
		}
	}
	wait("the crawl never reached the gate", func() bool { return served.Load() > n/2 })
	// The n/2 requests let through the gate are answered; then a checkpoint whose sealed files
	// hold every page among them (a sitemap.xml answered 404 is not sealed) is in the bucket.
	answered := func() (requests int, pages []string) {
		for _, s := range []*crawlertest.Server{free, held} {
			for _, h := range s.Log() {
				if h.Path == "/robots.txt" || h.Abandoned {
					continue
				}
				requests++
				if h.Path == "/" || strings.HasPrefix(h.Path, "/p/") {
					pages = append(pages, s.URL+h.Path)
				}
			}
		}
		return requests, pages
	}
	wait("the requests let through the gate were never answered", func() bool {
		requests, _ := answered()
		return requests == n/2
	})
	_, pages := answered()
	wait("no checkpoint in the bucket holds every page answered", func() bool {
		m := manifests()
		return len(m) > 0 && checkpointHolds(t, ctx, writer, m[len(m)-1], pages)
	})
	cmd.Process.Kill()
	cmd.Wait()
	if err := os.RemoveAll(first); err != nil {
		t.Fatal(err)
	}
	firstHits := map[*crawlertest.Server]int{free: len(free.Log()), held: len(held.Log())}
	open.Do(func() { close(gate) })

	// The lookup's identity cannot read, nor list, the sealed bucket.
	lookup := srv.Client(seaweedfs.Public)
	if _, err := lookup.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("sealed")}); seaweedfs.Status(err) != http.StatusForbidden {
		t.Errorf("the lookup's identity lists the sealed bucket: %v, want 403", err)
	}
	if _, err := lookup.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("sealed"), Key: aws.String(manifests()[0])}); seaweedfs.Status(err) != http.StatusForbidden {
		t.Errorf("the lookup's identity reads %s: %v, want 403", manifests()[0], err)
	}

	second := filepath.Join(dir, "second")
	restore := crawlCmd(t, exe, second, seeds, yaml, "--delay", "0s", "--restore")
	restore.Env = env
	// A crawl that hangs dumps its goroutines (SIGQUIT) into the failure.
	watchdog := time.AfterFunc(90*time.Second, func() { restore.Process.Signal(syscall.SIGQUIT) })
	r := waitCrawl(t, restore)
	watchdog.Stop()
	if r.code != 0 || !strings.Contains(r.stderr, "restored from the sealed store") {
		t.Fatalf("crawl --restore: exit %d\n%s", r.code, r.stderr)
	}
	caps := capturesByURL(sealedCaptures(t, second, false))
	for _, s := range []*crawlertest.Server{free, held} {
		for i := range n {
			if u := fmt.Sprintf("%s/p/%d", s.URL, i); len(caps[u]) != 1 {
				t.Errorf("%s: %d captures after the restore, want exactly 1", u, len(caps[u]))
			}
		}
	}
	// What the first crawl fetched before the kill is in the checkpoint (a hit is logged once
	// answered: the page of each origin cut short at the gate is not among them), and the
	// restored crawl does not fetch it again.
	for _, s := range []*crawlertest.Server{free, held} {
		log := s.Log()
		fetched, restored := map[string]bool{}, 0
		for _, h := range log[:firstHits[s]] {
			if h.Path != "/robots.txt" {
				fetched[h.Path] = true
				restored++
			}
		}
		again := 0
		for _, h := range log[firstHits[s]:] {
			if fetched[h.Path] {
				t.Errorf("%s%s was in the checkpoint and fetched again after the restore", s.URL, h.Path)
			}
			again++
		}
		if restored == 0 || again == 0 {
			t.Errorf("%s: %d pages from the checkpoint, %d requests after the restore; the test needs both", s.URL, restored, again)
		}
	}
	if os.Getenv("DEBUG_SEALED") != "" {
		t.Logf("first:\n%s\nrestore:\n%s", firstErr.String(), r.stderr)
	}

	now := time.Now().UTC().Add(8 * 24 * time.Hour).Format(time.RFC3339)
	mustRun(t, exe, "release", "--data", second, "--now", now)
	mustRun(t, exe, "verify", "--data", second)
	lines, err := publicLines(layout.Public(second))
	if err != nil {
		t.Fatal(err)
	}
	released := map[string]int{}
	for _, l := range lines {
		if l.State == public.StateReleased {
			released[l.URL]++
		}
	}
	for i := range n {
		if u := fmt.Sprintf("%s/p/%d", free.URL, i); released[u] != 1 {
			t.Errorf("%s: released %d times, want once", u, released[u])
		}
		if u := fmt.Sprintf("%s/p/%d", held.URL, i); released[u] != 0 {
			t.Errorf("%s: embargoed for 90 days, released at +8 days", u)
		}
	}
	blob := publicBytes(t, layout.Public(second))
	for i := range n {
		if m := fmt.Sprintf("marker-held-%d<", i); bytes.Contains(blob, []byte(m)) {
			t.Errorf("the body of embargoed page %d is under public/", i)
		}
	}
}

// checkpointHolds reports whether the sealed files named by the checkpoint manifest key (in the
// bucket "sealed", under node-1/) hold a record of each of urls.
func checkpointHolds(t *testing.T, ctx context.Context, c *s3.Client, key string, urls []string) bool {
	t.Helper()
	get := func(key string) []byte {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("sealed"), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		defer out.Body.Close()
		b, err := io.ReadAll(out.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var m offsite.Manifest
	if err := json.Unmarshal(get(key), &m); err != nil {
		t.Fatal(err)
	}
	var records bytes.Buffer
	for _, o := range m.Sealed {
		z, err := gzip.NewReader(bytes.NewReader(get("node-1/" + o.Name)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(&records, z); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range urls {
		if !bytes.Contains(records.Bytes(), []byte("WARC-Target-URI: "+u+"\r\n")) {
			if os.Getenv("DEBUG_SEALED") != "" {
				t.Logf("%s missing from %d bytes: %q", u, records.Len(), records.Bytes()[:min(records.Len(), 600)])
			}
			return false
		}
	}
	return true
}
