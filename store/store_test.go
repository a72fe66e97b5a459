package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fixedClock is a test clock that only moves when told.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func openTestStore(t testing.TB, dir string, opt Options) *Store {
	t.Helper()
	if opt.Now == nil {
		opt.Now = (&fixedClock{t: t0}).Now
	}
	if opt.Logger == nil {
		opt.Logger = testkit.QuietLogger()
	}
	// A store abandoned by a test (a simulated crash) drops its flock when its file is closed,
	// unless a child process forked meanwhile by a parallel test still shares the open file
	// until it execs: retry a busy lock briefly.
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := Open(dir, opt)
		if err == nil {
			return s
		}
		if !errors.Is(err, lockfile.ErrBusy) || time.Now().After(deadline) {
			t.Fatalf("Open: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// capture builds a capture of raw URL with a 200 response carrying body and extra header lines.
func capture(raw string, at time.Time, body string, headers ...string) Capture {
	u, _ := url.Parse(raw)
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: archivectl-test\r\n\r\n", u.RequestURI(), u.Host)
	var h strings.Builder
	h.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n")
	for _, l := range headers {
		h.WriteString(l + "\r\n")
	}
	fmt.Fprintf(&h, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return Capture{URL: raw, Time: at, IP: "127.0.0.1", Request: []byte(req), Response: []byte(h.String()),
		Period: embargo.Quarter, Outlinks: []string{raw + "/next"}}
}

func seal(t testing.TB, s *Store, caps ...Capture) []Entry {
	t.Helper()
	es, err := s.Seal(context.Background(), caps)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	if len(es) != len(caps) {
		t.Fatalf("Seal returned %d entries for %d captures", len(es), len(caps))
	}
	return es
}

func readBlock(t testing.TB, rec gowarc.WarcRecord) []byte {
	t.Helper()
	b, err := blockBytes(rec)
	if err != nil {
		t.Fatalf("block: %v", err)
	}
	return b
}

func TestSealRoundTrip(t *testing.T) {
	t.Parallel()
	for _, alg := range []string{"sha256", "sha1"} {
		t.Run(alg, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := openTestStore(t, dir, Options{Digest: alg, Operator: "Test Archive", Contact: "https://example.org/bot"})
			c := capture("https://example.com/a?x=1", t0, "<html>hello</html>", "Last-Modified: Thu, 01 Jan 2026 00:00:00 GMT")
			c.UsageHeader, c.Usage, c.RobotsID, c.Rule = []string{"train-ai=n"}, []string{"train-ai=n"}, "<urn:uuid:robots>", "3 allow /"
			e := seal(t, s, c)[0]
			sealedDir := filepath.Join(dir, layout.SealedDir)

			resp, err := ReadAt(sealedDir, e.Response)
			if err != nil {
				t.Fatalf("read response: %v", err)
			}
			defer resp.Close()
			if got := IDRef(resp.RecordId()); got != e.ID || resp.Type() != gowarc.Response {
				t.Errorf("response record %s %s, want response %s", resp.Type(), got, e.ID)
			}
			if !bytes.Equal(readBlock(t, resp), c.Response) {
				t.Errorf("response block differs from the bytes sealed")
			}
			if got := resp.WarcHeader().Get(gowarc.WarcPayloadDigest); got != e.PayloadDigest || got != Digest(alg, []byte("<html>hello</html>")) {
				t.Errorf("payload digest %s, entry %s", got, e.PayloadDigest)
			}
			if resp.WarcHeader().Get(gowarc.WarcBlockDigest) != Digest(alg, c.Response) {
				t.Errorf("block digest %s is not the %s of the block", resp.WarcHeader().Get(gowarc.WarcBlockDigest), alg)
			}
			req, err := ReadAt(sealedDir, e.Request)
			if err != nil {
				t.Fatalf("read request: %v", err)
			}
			defer req.Close()
			if req.Type() != gowarc.Request || req.WarcHeader().Get(gowarc.WarcConcurrentTo) != e.ID || !bytes.Equal(readBlock(t, req), c.Request) {
				t.Errorf("request record wrong: %s concurrent-to %s", req.Type(), req.WarcHeader().Get(gowarc.WarcConcurrentTo))
			}
			for _, r := range []gowarc.WarcRecord{req, resp} {
				if r.WarcHeader().Get(gowarc.WarcPayloadDigest) == "" || r.WarcHeader().Get(gowarc.WarcBlockDigest) == "" {
					t.Errorf("%s record lacks a digest", r.Type())
				}
			}
			meta, err := ReadAt(sealedDir, e.Metadata)
			if err != nil {
				t.Fatalf("read metadata: %v", err)
			}
			defer meta.Close()
			f, err := parseFacts(readBlock(t, meta))
			if err != nil {
				t.Fatal(err)
			}
			if f.Capture != e.ID || meta.WarcHeader().Get(gowarc.WarcConcurrentTo) != e.ID || !f.ReleaseAt.Equal(e.ReleaseAt) ||
				f.RobotsID != c.RobotsID || f.Rule != c.Rule || len(f.Outlinks) != 1 || f.UsageHeader[0] != "train-ai=n" {
				t.Errorf("metadata facts %+v do not match entry %+v", f, e)
			}
			if want := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC); !e.ReleaseAt.Equal(want) {
				t.Errorf("release at %s, want %s", e.ReleaseAt, want)
			}
			if e.Status != 200 || e.Mime != "text/html" || e.SURT != "com,example)/a?x=1" || e.LastModified == "" || e.Headers[0][0] != "Content-Type" {
				t.Errorf("entry facts wrong: %+v", e)
			}
			// The member copied byte for byte is one gzip member holding exactly the record.
			mr, err := MemberReader(sealedDir, e.Response)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(mr)
			mr.Close()
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			zr.Multistream(false)
			plain, err := io.ReadAll(zr)
			if err != nil || !bytes.HasPrefix(plain, []byte("WARC/1.1\r\n")) {
				t.Fatalf("member is not one gzip member of a WARC/1.1 record: %v", err)
			}
			if rest, _ := io.ReadAll(bytes.NewReader(raw[len(raw):])); len(rest) != 0 {
				t.Fatal("trailing bytes")
			}
			// Reading at a location that is not a whole member fails.
			bad := e.Response
			bad.Length--
			if _, err := ReadAt(sealedDir, bad); err == nil {
				t.Error("a short location read without error")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			names, _ := filepath.Glob(filepath.Join(sealedDir, "*"))
			if len(names) != 1 || !regexp.MustCompile(`/archivectl-\d{17}-00001-[A-Za-z0-9.-]+\.warc\.gz$`).MatchString(names[0]) {
				t.Errorf("sealed files %v, want one closed IIPC-named file", names)
			}
			if st, _ := os.Stat(sealedDir); st.Mode().Perm() != 0o700 {
				t.Errorf("sealed/ mode %v, want 0700", st.Mode().Perm())
			}
			// The reader still finds the record after the rename.
			if r, err := ReadAt(sealedDir, e.Response); err != nil {
				t.Errorf("read after close: %v", err)
			} else {
				r.Close()
			}
		})
	}
}

func TestWarcinfoFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStore(t, dir, Options{Operator: "Op", Contact: "mailto:ops@example.org", Software: "archivectl/test"})
	seal(t, s, capture("http://example.com/", t0, "x"))
	s.Close()
	files, _ := filepath.Glob(filepath.Join(dir, layout.SealedDir, "*.warc.gz"))
	var types []string
	var info string
	err := ScanFile(files[0], func(loc Location, rec gowarc.WarcRecord) error {
		types = append(types, rec.Type().String())
		if rec.Type() == gowarc.Warcinfo {
			info = string(readBlock(t, rec))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(types, ",") != "warcinfo,request,response,metadata" {
		t.Errorf("record types %v", types)
	}
	for _, want := range []string{"software: archivectl/test", "format: WARC File Format 1.1", "robots: obey", "operator: Op", "contact: mailto:ops@example.org"} {
		if !strings.Contains(info, want) {
			t.Errorf("warcinfo lacks %q:\n%s", want, info)
		}
	}
}

func TestReleaseTimes(t *testing.T) {
	t.Parallel()
	d := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	cases := []struct {
		name   string
		lm     string // Last-Modified line value, "" for none
		at     time.Time
		period embargo.Period
		robots bool
		want   time.Time
	}{
		{"T175 old Last-Modified wins", "Thu, 01 Jan 2026 00:00:00 GMT", d("2026-03-01T00:00:00Z"), embargo.Week, false, d("2026-01-08T00:00:00Z")},
		{"T176 no Last-Modified", "", d("2026-03-01T12:00:00Z"), embargo.Quarter, false, d("2026-05-30T12:00:00Z")},
		{"T177 future Last-Modified ignored", "Fri, 01 Jan 2027 00:00:00 GMT", d("2026-03-01T12:00:00Z"), embargo.Month, false, d("2026-04-01T12:00:00Z")},
		{"T178 unparseable Last-Modified", "yesterday", d("2026-02-01T00:00:00Z"), embargo.Month, false, d("2026-03-04T00:00:00Z")},
		{"T179 RFC 850", "Sunday, 01-Mar-26 00:00:00 GMT", d("2026-03-10T00:00:00Z"), embargo.Week, false, d("2026-03-08T00:00:00Z")},
		{"T180 asctime", "Sun Mar  1 00:00:00 2026", d("2026-03-10T00:00:00Z"), embargo.Week, false, d("2026-03-08T00:00:00Z")},
		{"T181 UTC is not GMT", "Sun, 01 Mar 2026 00:00:00 UTC", d("2026-03-10T00:00:00Z"), embargo.Week, false, d("2026-03-17T00:00:00Z")},
		{"T185 no embargo", "", d("2026-03-10T00:00:00Z"), embargo.None, false, d("2026-03-10T00:00:00Z")},
		{"robots.txt never embargoed", "", d("2026-03-10T00:00:00Z"), embargo.Quarter, true, d("2026-03-10T00:00:00Z")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := openTestStore(t, t.TempDir(), Options{})
			defer s.Close()
			var hs []string
			if tc.lm != "" {
				hs = append(hs, "Last-Modified: "+tc.lm)
			}
			u := "https://example.com/p"
			if tc.robots {
				u = "https://example.com/robots.txt"
			}
			c := capture(u, tc.at, "body", hs...)
			c.Period, c.Robots = tc.period, tc.robots
			e := seal(t, s, c)[0]
			if !e.ReleaseAt.Equal(tc.want) {
				t.Errorf("release at %s, want %s", e.ReleaseAt, tc.want)
			}
		})
	}
}

func TestFirstSeenAndRevisit(t *testing.T) {
	t.Parallel()
	jan, jun := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name        string
		first, then Capture
		sameBatch   bool
		revisit     bool
		want        time.Time
	}{
		{"T182 same payload: first seen carries over, due at once", capture("https://e.com/a", jan, "same"), capture("https://e.com/a", jun, "same"), false, true, jan.Add(embargo.Quarter.Duration())},
		{"T183 new payload: new first seen", capture("https://e.com/a", jan, "old"), capture("https://e.com/a", jun, "new"), false, false, jun.Add(embargo.Quarter.Duration())},
		{"same payload other URL is not a revisit", capture("https://e.com/a", jan, "same"), capture("https://e.com/b", jun, "same"), false, false, jun.Add(embargo.Quarter.Duration())},
		{"same payload within one batch", capture("https://e.com/a", jan, "same"), capture("https://e.com/a", jun, "same"), true, true, jan.Add(embargo.Quarter.Duration())},
		{"revisit never before its original", capture("https://e.com/a", jan, "same"), func() Capture {
			c := capture("https://e.com/a", jun, "same")
			c.Period = embargo.Week
			return c
		}(), false, true, jan.Add(embargo.Quarter.Duration())},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := openTestStore(t, dir, Options{})
			defer s.Close()
			var orig, e Entry
			if tc.sameBatch {
				es := seal(t, s, tc.first, tc.then)
				orig, e = es[0], es[1]
			} else {
				orig, e = seal(t, s, tc.first)[0], seal(t, s, tc.then)[0]
			}
			if e.Revisit != tc.revisit || !e.ReleaseAt.Equal(tc.want) {
				t.Fatalf("revisit %v release %s, want %v %s", e.Revisit, e.ReleaseAt, tc.revisit, tc.want)
			}
			if !tc.revisit {
				return
			}
			if e.RefersTo != orig.ID || e.ID == orig.ID || e.PayloadDigest != orig.PayloadDigest || !e.FirstSeen.Equal(orig.Time) {
				t.Errorf("revisit %+v does not refer to original %s", e, orig.ID)
			}
			rec, err := ReadAt(filepath.Join(dir, layout.SealedDir), e.Response)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			h := rec.WarcHeader()
			if rec.Type() != gowarc.Revisit || h.Get(gowarc.WarcProfile) != gowarc.ProfileIdenticalPayloadDigestV1_1 ||
				h.Get(gowarc.WarcRefersTo) != orig.ID || h.Get(gowarc.WarcRefersToTargetURI) != orig.URL ||
				h.Get(gowarc.WarcPayloadDigest) != orig.PayloadDigest || h.Get(gowarc.WarcBlockDigest) == "" {
				t.Errorf("revisit record headers wrong:\n%s", h)
			}
			if strings.Contains(string(readBlock(t, rec)), "same") {
				t.Error("revisit record carries the payload")
			}
		})
	}
}

func TestRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStore(t, dir, Options{MaxFileSize: 8 << 10})
	var all []Entry
	for i := range 30 {
		body := strings.Repeat(fmt.Sprintf("page %d incompressible-ish %x ", i, i*7919), 40)
		all = append(all, seal(t, s, capture(fmt.Sprintf("https://example.com/%d", i), t0.Add(time.Duration(i)*time.Second), body))...)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, layout.SealedDir, "*"))
	if len(files) < 3 {
		t.Fatalf("%d files, want rotation into several", len(files))
	}
	for _, f := range files {
		st, _ := os.Stat(f)
		if strings.HasSuffix(f, openSuffix) {
			t.Errorf("%s still open after Close", f)
		}
		if st.Size() > 8<<10 {
			t.Errorf("%s is %d bytes, over the maximum", f, st.Size())
		}
		first := true
		if err := ScanFile(f, func(_ Location, rec gowarc.WarcRecord) error {
			if first && rec.Type() != gowarc.Warcinfo {
				t.Errorf("%s starts with %s", f, rec.Type())
			}
			first = false
			return nil
		}); err != nil {
			t.Error(err)
		}
	}
	for _, e := range all {
		if e.Request.File != e.Response.File || e.Response.File != e.Metadata.File {
			t.Errorf("capture %s spans files", e.ID)
		}
		rec, err := ReadAt(filepath.Join(dir, layout.SealedDir), e.Response)
		if err != nil {
			t.Fatalf("read %v: %v", e.Response, err)
		}
		rec.Close()
	}
}

func TestConcurrentSeal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStore(t, dir, Options{MaxFileSize: 32 << 10})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Go(func() {
			for i := range 10 {
				u := fmt.Sprintf("https://e%d.example/%d", g, i)
				es, err := s.Seal(context.Background(), []Capture{capture(u, t0, u)})
				if err != nil {
					errs <- err
					return
				}
				rec, err := ReadAt(filepath.Join(dir, layout.SealedDir), es[0].Response)
				if err != nil {
					errs <- err
					return
				}
				rec.Close()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	n, err := s.Index().Counts(t0)
	if err != nil || n.Sealed != 40 {
		t.Errorf("counts %+v %v, want 40 sealed", n, err)
	}
}

func TestSealRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		c    Capture
	}{
		{"not http", func() Capture { c := capture("https://e.com/", t0, "x"); c.URL = "ftp://e.com/"; return c }()},
		{"no response head", func() Capture { c := capture("https://e.com/", t0, "x"); c.Response = []byte("garbage"); return c }()},
		{"no request", func() Capture { c := capture("https://e.com/", t0, "x"); c.Request = nil; return c }()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := openTestStore(t, dir, Options{})
			good := capture("https://e.com/good", t0, "fine")
			if _, err := s.Seal(context.Background(), []Capture{good, tc.c}); err == nil {
				t.Fatal("Seal accepted a bad capture")
			}
			n, _ := s.Index().Counts(t0)
			if n.Sealed != 0 {
				t.Errorf("a failed batch indexed %d captures", n.Sealed)
			}
			e := seal(t, s, good)[0]
			if e.Request.Offset == 0 {
				t.Error("no warcinfo before the first record")
			}
			s.Close()
			if ps, err := Verify(context.Background(), dir); err != nil || len(ps) != 0 {
				t.Errorf("verify after a failed batch: %v %v", ps, err)
			}
		})
	}
}

// TestChunkedPayloadDigest pins the documented choice: the payload digest covers the payload as
// received, chunked framing included (as gowarc and warcio compute it), and the record keeps it.
func TestChunkedPayloadDigest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStore(t, dir, Options{})
	defer s.Close()
	body := "5\r\nhello\r\n0\r\n\r\n"
	c := capture("https://example.com/chunked", t0, "")
	c.Response = []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
	e := seal(t, s, c)[0]
	if e.PayloadDigest != Digest("sha256", []byte(body)) {
		t.Errorf("payload digest %s, want the digest of the chunked bytes", e.PayloadDigest)
	}
	rec, err := ReadAt(filepath.Join(dir, layout.SealedDir), e.Response)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if !bytes.Equal(readBlock(t, rec), c.Response) {
		t.Error("the chunked response is not stored as received")
	}
}

// TestSealRobotsOnlyAtRobotsTxt: a capture marked as robots.txt evidence at any other URL is
// refused as a whole and nothing is sealed (docs/rules.md#d23).
func TestSealRobotsOnlyAtRobotsTxt(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir(), Options{})
	defer s.Close()
	c := capture("https://example.com/news/a", t0, "an embargoed article")
	c.Robots, c.Period = true, embargo.Quarter
	ok := capture("https://example.com/robots.txt", t0, "User-agent: *\n")
	ok.Robots = true
	if _, err := s.Seal(context.Background(), []Capture{ok, c}); !errors.Is(err, ErrNotRobotsTxt) {
		t.Fatalf("Seal = %v, want ErrNotRobotsTxt", err)
	}
	n, err := s.Index().Counts(t0)
	if err != nil {
		t.Fatal(err)
	}
	if n.Sealed+n.Released+n.Tombstoned != 0 {
		t.Errorf("counts %+v after a refused seal, want nothing indexed", n)
	}
}
