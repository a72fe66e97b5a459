package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/warcfields"
	"github.com/archivectl/archivectl/store"
)

// The crawl tests here drive the built binary: a kill, a signal and a process's memory are
// things only a process shows. The crawler's decisions are tested in process in package crawler.

// TestCrawlKilledAndResumed kills a crawl with SIGKILL mid-way and runs it again: nothing
// sealed is fetched again and every page ends up sealed exactly once.
func TestCrawlKilledAndResumed(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	const n = 60
	site := map[string]string{"/robots.txt": "User-agent: *\nDisallow: /private\n"}
	for i := range n {
		site[fmt.Sprintf("/p/%d", i)] = fmt.Sprintf(`<a href="/p/%d">next</a><a href="/p/%d">skip</a><a href="/private/%d">p</a>`, (i+1)%n, (i+7)%n, i)
	}
	site["/"] = `<a href="/p/0">start</a>`
	killAt := make(chan struct{})
	var served atomic.Int32
	o := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) == 25 {
			close(killAt)
		}
		crawlertest.Pages(site).ServeHTTP(w, r)
	}))
	defer o.Close()
	data := t.TempDir()
	cmd := crawlCmd(t, exe, data, []string{o.URL + "/"}, "", "--delay", "0s")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-killAt:
	case <-time.After(20 * time.Second):
		t.Fatal("the crawl never reached 25 requests")
	}
	cmd.Process.Kill()
	cmd.Wait()

	first := capturesByURL(sealedCaptures(t, data, true))
	firstHits := len(o.Log())
	if len(first) == 0 || len(first) >= n {
		t.Fatalf("the kill left %d URLs sealed; the test needs a crawl cut mid-way", len(first))
	}
	r := waitCrawl(t, crawlCmd(t, exe, data, []string{o.URL + "/"}, "", "--delay", "0s"))
	if r.code != 0 {
		t.Fatalf("resumed crawl: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "crawl resumed") {
		t.Errorf("the second run did not resume:\n%s", r.stderr)
	}
	for _, h := range o.Log()[firstHits:] {
		if h.Path != "/robots.txt" && len(first[o.URL+h.Path]) > 0 {
			t.Errorf("%s was sealed before the kill and fetched again", h.Path)
		}
	}
	final := capturesByURL(sealedCaptures(t, data, false))
	for p := range site {
		if got := len(final[o.URL+p]); p != "/robots.txt" && got != 1 {
			t.Errorf("%s: %d captures, want exactly 1", p, got)
		}
	}
	for _, h := range o.Log() {
		if strings.HasPrefix(h.Path, "/private") {
			t.Errorf("disallowed %s requested", h.Path)
		}
		if !strings.Contains(h.UserAgent, "archivectl/") || !strings.Contains(h.UserAgent, "+https://example.com/contact") {
			t.Errorf("User-Agent %q lacks the token and contact URL", h.UserAgent)
		}
	}
	// A finished crawl started again is a new crawl: unchanged pages become revisits.
	r = waitCrawl(t, crawlCmd(t, exe, data, []string{o.URL + "/"}, "", "--delay", "0s", "--max-pages", "5"))
	if r.code != 0 || !strings.Contains(r.stdout, "pages        5 (5 revisits)") {
		t.Errorf("third run: exit %d, summary:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestCrawlInterrupted sends SIGINT, then SIGTERM, mid-crawl: in-flight work is sealed, files are
// closed, and the exit status is the signal's own, 130 or 143 (128 + its number, as shells say),
// not the 1 of a failed crawl; the same command then resumes the crawl and exits 0.
func TestCrawlInterrupted(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			t.Parallel()
			site := map[string]string{"/robots.txt": ""}
			for i := range 50 {
				site[fmt.Sprintf("/p/%d", i)] = fmt.Sprintf(`<a href="/p/%d">next</a>`, i+1)
			}
			site["/"] = `<a href="/p/0">start</a>`
			third := make(chan struct{})
			var served atomic.Int32
			o := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if served.Add(1) == 3 {
					close(third)
				}
				crawlertest.Pages(site).ServeHTTP(w, r)
			}))
			defer o.Close()
			data := t.TempDir()
			cmd := crawlCmd(t, exe, data, []string{o.URL + "/"}, "", "--delay", "100ms")
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			<-third
			cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != tc.code {
				t.Fatalf("exit %v, want %d\nstderr:\n%s", err, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), "interrupted") || !strings.Contains(out.String(), "pages ") {
				t.Errorf("no summary or no interrupt line:\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
			}
			if open, _ := filepath.Glob(filepath.Join(layout.Sealed(data), "*.open")); len(open) > 0 {
				t.Errorf("WARC files left open: %v", open)
			}
			if n := len(sealedCaptures(t, data, false)); n < 2 || n > 6 {
				t.Errorf("%d captures after an interrupt at the third request", n)
			}
			again := crawlCmd(t, exe, data, []string{o.URL + "/"}, "", "--delay", "0s")
			if b, err := again.CombinedOutput(); err != nil {
				t.Fatalf("resumed crawl: %v\n%s", err, b)
			}
		})
	}
}

// TestCrawlHostileBounded crawls every hostile server with the binary: the crawl ends in
// bounded time and memory, and what it sealed is indexed with the truncations noted.
func TestCrawlHostileBounded(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	mux := crawlertest.HostileMux()
	mux.Handle("/robots.txt", crawlertest.HugeRobots(10<<20))
	mux.Handle("/", http.RedirectHandler("/hostile/", http.StatusFound))
	o := crawlertest.NewServer(mux)
	defer o.Close()
	data := t.TempDir()
	cfg := "crawl:\n  timeout: 1500ms\n  max_body: 1048576\n  retries: 1\n  retry_backoff: 50ms\n"
	start := time.Now()
	r := waitCrawl(t, crawlCmd(t, exe, data, []string{o.URL + "/"}, cfg, "--delay", "0s", "-v"))
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the crawl took %v:\n%s", d, r.stderr)
	}
	if r.maxRSS == 0 || r.maxRSS > 200<<20 {
		t.Errorf("max RSS %d MiB, want under 200 MiB", r.maxRSS>>20)
	}
	if err := o.CheckPolite(0); err != nil {
		t.Errorf("hostile: %v", err)
	}
	caps := capturesByURL(sealedCaptures(t, data, false))
	for p, truncated := range map[string]string{"/hostile/endless": "length", "/hostile/slow": "time", "/hostile/bomb": "", "/hostile/garbage": ""} {
		cs := caps[o.URL+p]
		if len(cs) != 1 {
			t.Errorf("%s: %d captures, want 1", p, len(cs))
			continue
		}
		if got := cs[0].facts["truncated"]; got != truncated {
			t.Errorf("%s: truncated %q, want %q", p, got, truncated)
		}
	}
}

// crawlProc is one archivectl crawl's outcome.
type crawlProc struct {
	code           int
	stdout, stderr string
	maxRSS         int64 // peak RSS in bytes, from the summary's memory line
}

// crawlCmd prepares archivectl crawl over seeds with a config file holding the contact URL and yaml.
func crawlCmd(t *testing.T, exe, data string, seeds []string, yaml string, args ...string) *exec.Cmd {
	t.Helper()
	dir := t.TempDir()
	seedsFile := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seedsFile, []byte("# test seeds\n"+strings.Join(seeds, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgFile, []byte("contact: https://example.com/contact\n"+yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	full := append([]string{"crawl", "--data", data, "--config", cfgFile}, args...)
	return exec.Command(exe, append(full, seedsFile)...)
}

// waitCrawl runs cmd to its end and returns what it did.
func waitCrawl(t *testing.T, cmd *exec.Cmd) crawlProc {
	t.Helper()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := crawlProc{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running archivectl: %v", err)
	}
	// Not rusage: its maxrss counts the test process's memory shared until exec.
	for _, line := range strings.Split(r.stdout, "\n") {
		var mib float64
		if _, err := fmt.Sscanf(line, "memory %f MiB peak RSS", &mib); err == nil {
			r.maxRSS = int64(mib * (1 << 20))
		}
	}
	return r
}

// sealedCapture is one sealed capture as the WARC files and the index show it.
type sealedCapture struct {
	url   string
	entry store.Entry
	facts map[string]string // the metadata record's named fields (the first value of each)
	// The main record's WARC-Type (response, revisit, resource) and WARC-Concurrent-To.
	recordType, concurrentTo string
}

// sealedCaptures reads every response, revisit and resource record of data/sealed with its metadata
// and index entry. A record the index does not know fails the test, unless a killed run may
// have left it (orphans): the store cuts those away when it next opens.
func sealedCaptures(t *testing.T, data string, orphans bool) []sealedCapture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(layout.Sealed(data), "*.warc.gz*"))
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]map[string]string{}
	var caps []sealedCapture
	for _, f := range files {
		err := store.ScanFile(f, func(_ store.Location, rec gowarc.WarcRecord) error {
			h := rec.WarcHeader()
			switch rec.Type() {
			case gowarc.Response, gowarc.Revisit, gowarc.Resource:
				caps = append(caps, sealedCapture{url: h.Get(gowarc.WarcTargetURI), entry: store.Entry{ID: h.Get(gowarc.WarcRecordID)},
					recordType: rec.Type().String(), concurrentTo: h.Get(gowarc.WarcConcurrentTo)})
			case gowarc.Metadata:
				if ct := h.Get(gowarc.ContentType); ct != gowarc.ApplicationWarcFields {
					return fmt.Errorf("a metadata record of type %q", ct)
				}
				rb, err := rec.Block().RawBytes()
				if err != nil {
					return err
				}
				b, err := io.ReadAll(rb)
				if err != nil {
					return err
				}
				fs, err := warcfields.Parse(b)
				if err != nil {
					return err
				}
				m := map[string]string{}
				for _, f := range fs {
					if _, ok := m[f.Name]; !ok {
						m[f.Name] = f.Value
					}
				}
				facts[h.Get(gowarc.WarcConcurrentTo)] = m
			}
			return nil
		})
		if err != nil {
			t.Fatalf("scan %s: %v", f, err)
		}
	}
	ix, err := store.OpenIndex(layout.Index(data), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var indexed []sealedCapture
	for _, c := range caps {
		e, ok, err := ix.Get(c.entry.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if !orphans {
				t.Fatalf("capture %s of %s not in the index", c.entry.ID, c.url)
			}
			continue
		}
		c.entry, c.facts = e, facts[c.entry.ID]
		indexed = append(indexed, c)
	}
	return indexed
}

// capturesByURL groups captures by URL.
func capturesByURL(caps []sealedCapture) map[string][]sealedCapture {
	m := map[string][]sealedCapture{}
	for _, c := range caps {
		m[c.url] = append(m[c.url], c)
	}
	return m
}
