package reliability

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/store"
	"github.com/nlnwa/gowarc/v3"
)

// TestCrawlChild is the child process of TestKillCrawl: it crawls RELIABILITY_CRAWL_SEEDS into
// RELIABILITY_CRAWL_DIR with the real crawler and store, and acknowledges on stdout, one line
// per capture ("ack ID URL"), every capture whose Seal has returned: from then on it is durable.
func TestCrawlChild(t *testing.T) {
	dir := os.Getenv("RELIABILITY_CRAWL_DIR")
	if dir == "" {
		t.Skip("the child process of TestKillCrawl")
	}
	seeds, err := crawler.ParseSeeds(strings.NewReader(os.Getenv("RELIABILITY_CRAWL_SEEDS")))
	if err != nil {
		t.Fatal(err)
	}
	maxFile, _ := strconv.ParseInt(os.Getenv("RELIABILITY_CRAWL_MAXFILE"), 10, 64)
	st, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger(), MaxFileSize: maxFile})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cr, err := crawler.Open(crawler.Config{
		DataDir: dir, Seeds: seeds, Delay: 0, Concurrency: 4, Timeout: 10 * time.Second, Retries: 3, RetryBackoff: 10 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cr.Run(context.Background(), ackArchive{crawler.StoreArchive(st)})
	if err := errors.Join(err, cr.Close()); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Println("done")
}

// ackArchive seals into the store and acknowledges each durable capture on stdout.
type ackArchive struct{ crawler.Archive }

func (a ackArchive) Seal(ctx context.Context, caps []store.Capture) ([]store.Entry, error) {
	es, err := a.Archive.Seal(ctx, caps)
	if err != nil {
		return es, err
	}
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "ack %s %s\n", e.ID, e.URL)
	}
	if _, err := os.Stdout.WriteString(b.String()); err != nil { // unbuffered: written when it returns
		return es, err
	}
	return es, nil
}

// site is a test web of pages on several loopback origins.
type site struct {
	servers []*httptest.Server
	pages   int
}

// newSite serves `origins` origins of `pages` linked pages each (a tree with a chain through it).
func newSite(t *testing.T, origins, pages int, seed uint64) *site {
	t.Helper()
	s := &site{pages: pages}
	for o := range origins {
		rng := rand.New(rand.NewPCG(seed, uint64(o)))
		bodies := make([]string, pages)
		for i := range bodies {
			var links strings.Builder
			for _, j := range []int{2*i + 1, 2*i + 2, i + 1} {
				if j < pages {
					fmt.Fprintf(&links, `<a href="/p/%d">p%d</a> `, j, j)
				}
			}
			bodies[i] = fmt.Sprintf("<!doctype html><title>%d</title><p>%s%016x</p>%s<p>%s</p>",
				i, markerPrefix, rng.Uint64(), links.String(), strings.Repeat("filler text ", rng.IntN(300)))
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "User-agent: *\nArchive-Embargo: w\nAllow: /\n")
		})
		mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
			var n int
			if _, err := fmt.Sscan(r.PathValue("n"), &n); err != nil || n < 0 || n >= pages {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Last-Modified", t0.Add(time.Duration(n)*time.Hour).Format(http1123))
			fmt.Fprint(w, bodies[n])
		})
		mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<a href="/p/0">start</a>`)
		})
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		s.servers = append(s.servers, srv)
	}
	return s
}

// seeds is the seeds file content.
func (s *site) seeds() string {
	var b strings.Builder
	for _, srv := range s.servers {
		b.WriteString(srv.URL + "/\n")
	}
	return b.String()
}

// crawlChild runs TestCrawlChild over dir; with kill > 0 it is killed with SIGKILL that long
// after its first acknowledgement. It returns the acknowledged capture ids (id → URL), whether
// the crawl finished and how long it took from its first acknowledgement to its last.
func crawlChild(t *testing.T, dir, seeds string, kill time.Duration) (acks map[string]string, finished bool, took time.Duration, stderrText string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrawlChild$", "-test.count=1")
	// WARC files of 32 KiB make seal batches span several files (see TestKillRotatingSeal).
	maxFile := int64(32 << 10)
	cmd.Env = append(os.Environ(), "RELIABILITY_CRAWL_DIR="+dir, "RELIABILITY_CRAWL_SEEDS="+seeds, "RELIABILITY_CRAWL_MAXFILE="+strconv.FormatInt(maxFile, 10))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	var first time.Time
	acks = map[string]string{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "ack" {
			acks[f[1]] = f[2]
			if first.IsZero() {
				first = time.Now()
				if kill > 0 {
					deadline.Reset(kill)
				}
			}
			took = time.Since(first)
		}
		if sc.Text() == "done" {
			finished = true
		}
	}
	err = cmd.Wait()
	if kill == 0 && (err != nil || !finished) {
		t.Fatalf("crawl child: %v: %s", err, stderr.String())
	}
	return acks, finished, took, stderr.String()
}

// TestKillCrawl kills a crawl (the real crawler and store, in a child process) with SIGKILL at a
// random moment, then checks that every capture acknowledged before the kill is in the index
// and verifies; restarts the crawl to its end and checks that store.Verify is clean, no sealed
// file is torn, every acknowledged capture is still there, and every page is captured exactly once.
func TestKillCrawl(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	seed := seedFor(t)
	rng := rand.New(rand.NewPCG(seed, 3))
	web := newSite(t, 3, 60, seed)
	seeds := web.seeds()
	base := memDir(t)

	// A whole crawl, once: how long it seals for, and which pages it captures.
	_, _, took, logs := crawlChild(t, filepath.Join(base, "reference"), seeds, 0)
	want := map[string]int{}
	for _, e := range indexEntries(t, filepath.Join(base, "reference")) {
		if !e.Robots {
			want[e.URL]++
		}
	}
	if len(want) != 3*61 {
		t.Fatalf("the reference crawl captured %d pages, the site has %d; its log:\n%s", len(want), 3*61, logs)
	}
	acked, killed, failed := 0, 0, 0
	for trial := range crashTrials() {
		dir := filepath.Join(base, fmt.Sprintf("trial-%02d", trial))
		delay := time.Duration(rng.Int64N(int64(took) + 1))
		where := fmt.Sprintf("trial %d (killed %v into %v of sealing)", trial, delay, took)
		bad := false
		errorf := func(format string, args ...any) {
			t.Helper()
			t.Errorf(format, args...)
			bad = true
		}
		acks, finished, _, _ := crawlChild(t, dir, seeds, delay)
		if !finished {
			killed++
		}
		acked += len(acks)
		lost := checkAcked(t, dir, acks, where+", after the kill")
		if ps, err := store.Verify(context.Background(), dir); err != nil && len(acks) > 0 {
			errorf("%s: store.Verify: %v", where, err)
		} else {
			for _, p := range ps {
				errorf("%s: store.Verify after the kill: %s", where, p)
			}
		}

		more, _, _, logs := crawlChild(t, dir, seeds, 0)
		acked += len(more)
		lost += checkAcked(t, dir, acks, where+", after the restart")
		lost += checkAcked(t, dir, more, where+", after the restart")
		bad = bad || lost > 0
		ps, err := store.Verify(context.Background(), dir)
		if err != nil {
			errorf("%s: store.Verify: %v", where, err)
		}
		for _, p := range ps {
			errorf("%s: store.Verify after the restart: %s", where, p)
		}
		got := map[string]int{}
		for _, e := range indexEntries(t, dir) {
			if !e.Robots {
				got[e.URL]++
			}
		}
		// A crawl killed after sealing its last page may have marked itself complete: the
		// restart is then a new crawl of the same seeds, and each page is captured twice.
		complete := true
		ackedURL := map[string]bool{}
		for _, u := range acks {
			ackedURL[u] = true
		}
		for u := range want {
			complete = complete && ackedURL[u]
		}
		for u := range want {
			if got[u] != 1 && !(complete && got[u] == 2) {
				errorf("%s: %s captured %d times after the restart, want once; the restarted crawl's log:\n%s", where, u, got[u], logs)
			}
		}
		for u, n := range got {
			if want[u] == 0 {
				errorf("%s: %s captured %d times, not a page of the site", where, u, n)
			}
		}
		names, _ := filepath.Glob(filepath.Join(dir, layout.SealedDir, "*"))
		for _, n := range names {
			if strings.HasSuffix(n, ".open") {
				errorf("%s: %s is still open after a clean crawl", where, n)
			}
			if err := store.ScanFile(n, func(store.Location, gowarc.WarcRecord) error { return nil }); err != nil {
				errorf("%s: torn sealed file after the restart: %v", where, err)
			}
		}
		if bad {
			failed++
			if !campaign() {
				return
			}
		}
		os.RemoveAll(dir)
	}
	t.Logf("crawl crash campaign: %d trials (%d killed mid-crawl), %d pages each, %d acknowledged captures checked, %d trials failed",
		crashTrials(), killed, len(want), acked, failed)
}

// checkAcked fails for every acknowledged capture that the index of dir does not hold, and
// returns how many there are.
func checkAcked(t *testing.T, dir string, acks map[string]string, where string) (lost int) {
	t.Helper()
	if len(acks) == 0 {
		return 0
	}
	entries := indexEntries(t, dir)
	for id, u := range acks {
		if _, ok := entries[id]; !ok {
			t.Errorf("LOST %s: capture %s of %s was acknowledged but is not in the index", where, id, u)
			lost++
		}
	}
	return lost
}
