package lookup

import (
	"crypto/rand"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/public"
)

// largeRecord releases a record whose answers, in every format, are larger than maxVerified: a
// 20 MiB incompressible body. It returns the capture and the whole answer of each format.
func largeRecord(t *testing.T, f *fixture, damage func(rec string) string) (public.CDXJ, map[string]string) {
	t.Helper()
	big := make([]byte, 20<<20)
	rand.Read(big)
	body := string(big)
	rec := warcRecord(damagedCapture, "video/mp4", body)
	member := gzipped(damage(rec))
	c := f.releaseMember(damagedCapture, member)
	f.commit()
	return c, map[string]string{"warc.gz": string(member), "warc": rec, "payload": body}
}

// rangeGet asks for path with the request header fields hs; resp is nil when no answer came.
func rangeGet(t *testing.T, base, path string, hs map[string]string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hs {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// TestRecordRangeLarge: a Range on a record answer too large to hold (20 MiB, in each format) is
// answered 206 with exactly the bytes asked for — at the start, the middle and the end, open and
// suffix ranges, ranges past the end cut to it — or 416 when none is in the answer; several
// ranges, If-Range and a Range that does not parse are answered whole (200), as RFC 9110 allows.
func TestRecordRangeLarge(t *testing.T) {
	t.Parallel()
	f := standard(t)
	c, whole := largeRecord(t, f, func(rec string) string { return rec })
	o := observe(t, f)
	for _, format := range []string{"warc.gz", "warc", "payload"} {
		w := whole[format]
		n := len(w)
		path := "/api/v1/record?url=" + url.QueryEscape(c.URL) + "&format=" + format
		for _, tc := range []struct {
			name     string
			hs       map[string]string
			status   int
			from, to int // the bytes of a 206
		}{
			{"start", map[string]string{"Range": "bytes=0-99"}, 206, 0, 99},
			{"middle", map[string]string{"Range": "bytes=10485700-10486899"}, 206, 10485700, 10486899},
			{"end", map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", n-100, n-1)}, 206, n - 100, n - 1},
			{"open", map[string]string{"Range": fmt.Sprintf("bytes=%d-", n-70000)}, 206, n - 70000, n - 1},
			{"past the end", map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", n-10, n+1000)}, 206, n - 10, n - 1},
			{"suffix", map[string]string{"Range": "bytes=-500"}, 206, n - 500, n - 1},
			{"suffix longer than the answer", map[string]string{"Range": fmt.Sprintf("bytes=-%d", n+5)}, 206, 0, n - 1},
			{"one byte", map[string]string{"Range": "bytes=12345678-12345678"}, 206, 12345678, 12345678},
			{"from the end on", map[string]string{"Range": fmt.Sprintf("bytes=%d-", n)}, 416, 0, 0},
			{"empty suffix", map[string]string{"Range": "bytes=-0"}, 416, 0, 0},
			{"several ranges", map[string]string{"Range": "bytes=0-9,100-109"}, 200, 0, n - 1},
			{"If-Range", map[string]string{"Range": "bytes=0-9", "If-Range": `"x"`}, 200, 0, n - 1},
			{"does not parse", map[string]string{"Range": "bytes=9-0"}, 200, 0, n - 1},
		} {
			resp, got, err := rangeGet(t, o.URL, path, tc.hs)
			what := fmt.Sprintf("%s, %s (%s)", format, tc.name, tc.hs["Range"])
			if err != nil || resp.StatusCode != tc.status {
				t.Errorf("%s: %v, %v; want status %d", what, resp, err, tc.status)
				continue
			}
			if ar := resp.Header.Get("Accept-Ranges"); ar != "bytes" || resp.Header.Get("Memento-Datetime") == "" {
				t.Errorf("%s: Accept-Ranges %q, Memento-Datetime %q", what, ar, resp.Header.Get("Memento-Datetime"))
			}
			switch tc.status {
			case 416:
				if cr := resp.Header.Get("Content-Range"); cr != fmt.Sprintf("bytes */%d", n) {
					t.Errorf("%s: Content-Range %q, want bytes */%d", what, cr, n)
				}
				continue
			case 206:
				if cr := resp.Header.Get("Content-Range"); cr != fmt.Sprintf("bytes %d-%d/%d", tc.from, tc.to, n) {
					t.Errorf("%s: Content-Range %q, want bytes %d-%d/%d", what, cr, tc.from, tc.to, n)
				}
			}
			if string(got) != w[tc.from:tc.to+1] || tc.status == 206 && resp.ContentLength != int64(tc.to-tc.from+1) {
				t.Errorf("%s: %d bytes (Content-Length %d), want bytes %d-%d of the answer", what, len(got), resp.ContentLength, tc.from, tc.to)
			}
		}
	}
	if o.log.String() != "" && strings.Contains(o.log.String(), "level=ERROR") {
		t.Errorf("errors logged for a sound record:\n%s", o.log)
	}
}

// TestRecordRangeLargeDamaged: a range of a damaged large record is never served: the record is
// checked whole before the first byte, so the answer is 500, in every format, counted.
func TestRecordRangeLargeDamaged(t *testing.T) {
	t.Parallel()
	f := standard(t)
	c, _ := largeRecord(t, f, func(rec string) string { // a body byte near the end: the digests fail
		return rec[:len(rec)-100] + "x" + rec[len(rec)-99:]
	})
	o := observe(t, f)
	for i, format := range []string{"warc.gz", "warc", "payload"} {
		for j, rg := range []string{"bytes=0-99", "bytes=-100"} {
			resp, got, err := rangeGet(t, o.URL, "/api/v1/record?url="+url.QueryEscape(c.URL)+"&format="+format, map[string]string{"Range": rg})
			if err != nil || resp.StatusCode != 500 || !strings.HasPrefix(string(got), `{"error":`) {
				t.Errorf("%s %s: %v, %.80q, %v; want a 500 JSON error", format, rg, resp, got, err)
			}
			if got := o.damagedCount(t); got != fmt.Sprint(2*i+j+1) {
				t.Errorf("%s %s: archivectl_lookup_damaged_records_total %s, want %d", format, rg, got, 2*i+j+1)
			}
		}
	}
}

// TestRecordRangeChangedBetweenReadings: a record that passes the first, checking reading and is
// damaged before the second (the reading that sends the range) has its answer aborted: the 206
// promised Content-Length bytes, and the handler writes fewer (the held-back end of the range
// never goes out), then aborts the connection.
func TestRecordRangeChangedBetweenReadings(t *testing.T) {
	t.Parallel()
	f := standard(t)
	c, _ := largeRecord(t, f, func(rec string) string { return rec })
	for _, tc := range []struct {
		format, rg string
		readings   int32 // the held one that outgrew maxVerified (a payload's), then the two of serveRange
	}{
		{"warc.gz", "bytes=0-99", 2}, {"warc", "bytes=5000000-6000000", 2}, {"payload", "bytes=-100", 3}, {"payload", "bytes=0-", 3},
	} {
		// The member reads damaged from the last reading on.
		fsys := &flipFS{FS: os.DirFS(f.dir), at: c.Offset + c.Length - 6, after: int(tc.readings), start: c.Offset}
		lb := &logBuffer{}
		s, err := New(fsys, Options{Now: func() time.Time { return testNow }, Logger: slog.New(slog.NewTextHandler(lb, nil))})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/api/v1/record?url="+url.QueryEscape(c.URL)+"&format="+tc.format, nil)
		req.Header.Set("Range", tc.rg)
		var aborted any
		func() {
			defer func() { aborted = recover() }()
			s.ServeHTTP(rec, req)
		}()
		promised := rec.Header().Get("Content-Length")
		if rec.Code != 206 || aborted != http.ErrAbortHandler || fmt.Sprint(rec.Body.Len()) == promised {
			t.Errorf("%s %s: status %d, %d bytes written of the %s promised, panic %v: want fewer, then the connection aborted",
				tc.format, tc.rg, rec.Code, rec.Body.Len(), promised, aborted)
		}
		if fsys.readings.Load() != tc.readings || !strings.Contains(lb.String(), "connection aborted") {
			t.Errorf("%s: %d readings, want %d; log:\n%s", tc.format, fsys.readings.Load(), tc.readings, lb)
		}
	}
}

// flipFS serves files whose byte at offset at reads flipped from the after-th reading that
// starts at start on.
type flipFS struct {
	fs.FS
	at, start int64
	after     int
	readings  atomic.Int32
}

func (f *flipFS) Open(name string) (fs.File, error) {
	file, err := f.FS.Open(name)
	if err != nil || !strings.HasSuffix(name, ".warc.gz") {
		return file, err
	}
	return &flipFile{File: file, fs: f}, nil
}

type flipFile struct {
	fs.File
	fs *flipFS
}

func (f *flipFile) ReadAt(p []byte, off int64) (int, error) {
	if off == f.fs.start {
		f.fs.readings.Add(1)
	}
	n, err := f.File.(io.ReaderAt).ReadAt(p, off)
	if int(f.fs.readings.Load()) >= f.fs.after && off <= f.fs.at && f.fs.at < off+int64(n) {
		p[f.fs.at-off] ^= 0xff
	}
	return n, err
}
