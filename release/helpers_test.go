package release

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
	"github.com/klauspost/compress/gzip"
)

// t0 is when the test archive was crawled.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// secret is the body marker of capture i: it must never appear under public/ before its release.
func secret(i int) string { return fmt.Sprintf("SECRET-BODY-%04d-do-not-publish", i) }

// testCapture is a 200 HTML capture of raw at `at` under period p, with a body unique to i.
func testCapture(raw string, at time.Time, p embargo.Period, i int) store.Capture {
	u, _ := url.Parse(raw)
	body := fmt.Sprintf("<html><body><p>%s</p>%s</body></html>", secret(i), strings.Repeat("lorem ipsum ", i%7*20))
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: archivectl-test\r\n\r\n", u.RequestURI(), u.Host)
	resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nX-Capture: %d\r\nContent-Length: %d\r\n\r\n%s", i, len(body), body)
	return store.Capture{URL: raw, Time: at, IP: "127.0.0.1", Request: []byte(req), Response: []byte(resp),
		Period: p, Usage: []string{"train-ai=n"}, UsageHeader: []string{"train-ai=n"}}
}

// archive is a sealed test archive: its data directory and entries.
type archive struct {
	dir     string
	entries []store.Entry
	secrets map[string]string // capture id → body marker
}

// buildArchive seals n captures: a quarter each unembargoed, week, month and quarter, on distinct URLs.
func buildArchive(t testing.TB, dir string, n int) *archive {
	t.Helper()
	s, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger(), Now: func() time.Time { return t0 }, MaxFileSize: 64 << 10})
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	periods := []embargo.Period{embargo.None, embargo.Week, embargo.Month, embargo.Quarter}
	var caps []store.Capture
	for i := range n {
		caps = append(caps, testCapture(fmt.Sprintf("https://site%d.example/page/%d", i%3, i), t0.Add(time.Duration(i)*time.Second), periods[i%4], i))
	}
	a := &archive{dir: dir, secrets: map[string]string{}}
	for len(caps) > 0 {
		k := min(len(caps), 50)
		es, err := s.Seal(context.Background(), caps[:k])
		if err != nil {
			t.Fatalf("Seal: %v", err)
		}
		for j, e := range es {
			a.secrets[e.ID] = secret(len(a.entries) + j)
		}
		a.entries = append(a.entries, es...)
		caps = caps[k:]
	}
	if err := s.Close(); err != nil {
		t.Fatalf("store Close: %v", err)
	}
	return a
}

// newTestReleaser is a releaser with small shards and a quiet log.
func newTestReleaser(dir string) *Releaser {
	return New(dir, Options{ShardSize: 32 << 10, LockTimeout: 200 * time.Millisecond, Logger: testkit.QuietLogger(), Software: "archivectl-test"})
}

// mustPass runs one pass and fails the test on error.
func mustPass(t testing.TB, r *Releaser, now time.Time) Summary {
	t.Helper()
	s, err := r.Pass(context.Background(), now)
	if err != nil {
		t.Fatalf("Pass(%s): %v", now.Format(time.RFC3339), err)
	}
	return s
}

// snapshot reads every file under public/: relative path → bytes.
func snapshot(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	root := layout.Public(dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("snapshot: %v", err)
	}
	return out
}

// plainText is a public file as text: .gz files decompressed (all members).
func plainText(t testing.TB, name string, b []byte) []byte {
	t.Helper()
	if !strings.HasSuffix(name, ".gz") {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// publicLines reads every CDXJ line beside a public WARC file, by state: capture id → how many
// lines (public/embargoed/, pywb's view of the tombstones, is not counted).
func publicLines(t testing.TB, dir string) (released, embargoed map[string]int) {
	t.Helper()
	released, embargoed = map[string]int{}, map[string]int{}
	for name, b := range snapshot(t, dir) {
		if !strings.HasSuffix(name, ".cdxj") || strings.HasPrefix(name, layout.EmbargoedDir+"/") {
			continue
		}
		lines := bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
		if !sort.SliceIsSorted(lines, func(i, j int) bool { return bytes.Compare(lines[i], lines[j]) < 0 }) {
			t.Errorf("%s: lines not byte-sorted", name)
		}
		for _, raw := range lines {
			if len(raw) == 0 {
				continue
			}
			l, err := public.ParseLine(raw)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if l.State == public.StateReleased {
				released[l.ID]++
			} else {
				embargoed[l.ID]++
			}
		}
	}
	return released, embargoed
}

// mustVerify fails the test when Verify finds a problem.
func mustVerify(t testing.TB, dir string) {
	t.Helper()
	problems, err := Verify(context.Background(), dir)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	for _, p := range problems {
		t.Errorf("verify: %s", p)
	}
}
