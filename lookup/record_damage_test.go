package lookup

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/public"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// logBuffer collects a server's log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// observed is a lookup behind a real loopback server, with its log and /metrics.
type observed struct {
	*httptest.Server
	s   *Server
	log *logBuffer
}

// observe serves the fixture on loopback with a text log and the lookup's metrics at /metrics.
func observe(t *testing.T, f *fixture) *observed {
	t.Helper()
	reg := prometheus.NewRegistry()
	lb := &logBuffer{}
	s, err := Open(f.dir, Options{Now: func() time.Time { return testNow }, Registerer: reg,
		Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), Logger: slog.New(slog.NewTextHandler(lb, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return &observed{Server: ts, s: s, log: lb}
}

// fetch asks the server for path and reads the whole answer; readErr is how the body ended.
func (o *observed) fetch(t *testing.T, path string) (resp *http.Response, body []byte, readErr error) {
	t.Helper()
	resp, err := o.Client().Get(o.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, readErr = io.ReadAll(resp.Body)
	return resp, body, readErr
}

// damagedCount reads archivectl_lookup_damaged_records_total from /metrics.
func (o *observed) damagedCount(t *testing.T) string {
	t.Helper()
	_, body, _ := o.fetch(t, "/metrics")
	m := regexp.MustCompile(`(?m)^archivectl_lookup_damaged_records_total (\S+)$`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("/metrics lacks archivectl_lookup_damaged_records_total:\n%s", body)
	}
	return string(m[1])
}

// flip returns b with the byte at i (from the end when negative) inverted.
func flip(b []byte, i int) []byte {
	b = bytes.Clone(b)
	if i < 0 {
		i += len(b)
	}
	b[i] ^= 0xff
	return b
}

const secretBody = "<p>THE ARCHIVED BODY</p>"

// damagedCapture is the capture every damage case indexes.
var damagedCapture = public.CDXJ{URL: "https://example.com/damaged", Mime: "text/html", Status: 200, Digest: "sha256:x",
	ID: "<urn:uuid:dmg>", Time: "2026-08-01T10:00:00Z", ReleaseAt: "2026-08-08T10:00:00Z"}

// TestRecordDamaged: a record that fails any check is never served, in any format: the answer
// is a 500 JSON error, one ERROR is logged naming the file and offset, and /metrics counts it.
func TestRecordDamaged(t *testing.T) {
	t.Parallel()
	good := warcRecord(damagedCapture, "text/html", secretBody)
	next := gzipped(warcRecord(public.CDXJ{URL: "https://example.com/next", ID: "<urn:uuid:n>", Time: "2026-08-01T10:00:00Z"}, "text/html", "next"))
	tests := []struct {
		name   string
		member []byte
		length int64 // the CDXJ length; the member's own when 0
		want   string
	}{
		{"compressed byte flipped", flip(gzipped(good), 40), 0, ""},
		{"gzip CRC flipped", flip(gzipped(good), -6), 0, "checksum"},
		{"body byte changed, gzip sound", gzipped(strings.Replace(good, "ARCHIVED", "ARCHIVEd", 1)), 0, "WARC-Block-Digest"},
		{"payload digest wrong", gzipped(strings.Replace(good, "WARC-Payload-Digest: "+sha256sum(secretBody), "WARC-Payload-Digest: "+sha256sum("other"), 1)), 0, "WARC-Payload-Digest"},
		{"no block digest", gzipped(regexp.MustCompile(`WARC-Block-Digest: [^\r]*\r\n`).ReplaceAllString(good, "")), 0, "WARC-Block-Digest: unusable WARC digest: missing"},
		{"digest algorithm unknown", gzipped(strings.Replace(good, "WARC-Block-Digest: sha256:", "WARC-Block-Digest: md4:", 1)), 0, "WARC-Block-Digest: unusable WARC digest: algorithm"},
		{"record of another URL", gzipped(strings.Replace(good, "example.com/damaged", "example.com/elsewhere", 1)), 0, "the record is of"},
		{"bytes after the record", gzipped(good + "EXTRA"), 0, "follow the record's end"},
		{"block cut short", gzipped(strings.TrimSuffix(good, "BODY</p>\r\n\r\n")), 0, "ends after"},
		{"length cut short", gzipped(good), int64(len(gzipped(good)) - 9), ""},
		{"length runs into the next member", append(gzipped(good), next...), 0, "runs " + fmt.Sprint(len(next)) + " bytes past the gzip member"},
		{"not gzip", []byte(good), 0, "gzip"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := standard(t)
			c := damagedCapture
			c.Length = tc.length
			c = f.releaseMember(c, tc.member)
			f.commit()
			o := observe(t, f)
			for i, format := range []string{"warc", "warc.gz", "payload"} {
				resp, body, err := o.fetch(t, "/api/v1/record?url="+url.QueryEscape(c.URL)+"&format="+format)
				if err != nil || resp.StatusCode != 500 || resp.Header.Get("Content-Type") != "application/json" ||
					!strings.Contains(string(body), `"error":"the public record of https://example.com/damaged is damaged and is not served`) ||
					!strings.Contains(string(body), tc.want) {
					t.Errorf("%s: status %d %q, body %s (read: %v); want 500 JSON naming %q", format, resp.StatusCode, resp.Header.Get("Content-Type"), body, err, tc.want)
				}
				if bytes.Contains(body, []byte("ARCHIVED")) || resp.Header.Get("Content-Disposition") != "" {
					t.Errorf("%s: the damaged record leaked into the answer: %s %v", format, body, resp.Header)
				}
				errors := regexp.MustCompile(`(?m)^.*level=ERROR.*$`).FindAllString(o.log.String(), -1)
				if len(errors) != i+1 || !strings.Contains(errors[i], "file=shards/PUBLIC-20261129000000-00001.warc.gz") ||
					!strings.Contains(errors[i], fmt.Sprintf("offset=%d", c.Offset)) {
					t.Errorf("%s: want error %d logged naming file and offset; log:\n%s", format, i+1, o.log)
				}
				if got := o.damagedCount(t); got != fmt.Sprint(i+1) {
					t.Errorf("%s: archivectl_lookup_damaged_records_total %s, want %d", format, got, i+1)
				}
			}
		})
	}
}

// TestRecordLengthPastFile: a CDXJ line whose record runs past the end of its shard (a length of
// 10^15) is reported when the public index is built, stays listed, and its record is refused without a
// byte read: 500 JSON, counted as damage.
func TestRecordLengthPastFile(t *testing.T) {
	t.Parallel()
	for _, loc := range []struct{ offset, length int64 }{{0, 1e15}, {1 << 40, 100}} {
		f := standard(t)
		good := f.releaseMember(damagedCapture, gzipped(warcRecord(damagedCapture, "text/html", secretBody)))
		bad := good
		bad.URL, bad.ID, bad.Offset, bad.Length = good.URL+"/past", "<urn:uuid:past>", loc.offset, loc.length
		f.add(strings.TrimSuffix(good.Filename, ".warc.gz")+".cdxj", bad)
		f.commit()
		o := observe(t, f)
		if !regexp.MustCompile(`level=WARN msg="released capture whose record will not be served" .*url=https://example.com/damaged/past .*runs past the end of public/shards/`).MatchString(f.rebuilt.String()) {
			t.Errorf("offset %d length %d: not reported when indexed:\n%s", loc.offset, loc.length, &f.rebuilt)
		}
		if resp, body, _ := o.fetch(t, "/api/v1/captures?url="+url.QueryEscape(bad.URL)); resp.StatusCode != 200 {
			t.Errorf("offset %d length %d: the capture is not listed: %d %s", loc.offset, loc.length, resp.StatusCode, body)
		}
		for i, format := range []string{"warc", "warc.gz", "payload"} {
			resp, body, err := o.fetch(t, "/api/v1/record?format="+format+"&url="+url.QueryEscape(bad.URL))
			if err != nil || resp.StatusCode != 500 || !strings.Contains(string(body), "is damaged and is not served") || !strings.Contains(string(body), "runs past the end of public/shards/") {
				t.Errorf("offset %d length %d %s: status %d %.300s, want 500 JSON", loc.offset, loc.length, format, resp.StatusCode, body)
			}
			if got := o.damagedCount(t); got != fmt.Sprint(i+1) {
				t.Errorf("%s: archivectl_lookup_damaged_records_total %s, want %d", format, got, i+1)
			}
			if resp, _, _ := o.fetch(t, "/api/v1/record?format="+format+"&url="+url.QueryEscape(good.URL)); resp.StatusCode != 200 {
				t.Errorf("the sound record next to it, %s: status %d", format, resp.StatusCode)
			}
		}
	}
}

// TestRecordDigestForms: the digests are checked in the forms WARC writers use: sha256 or sha1,
// in base16 of either case or base32 with or without padding.
func TestRecordDigestForms(t *testing.T) {
	t.Parallel()
	block := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	s1 := sha1.Sum([]byte(block))
	forms := []string{
		sha256sum(block), strings.ToUpper(sha256sum(block)[len("sha256:"):]),
		"sha1:" + base32.StdEncoding.EncodeToString(s1[:]), "SHA1:" + strings.TrimRight(base32.StdEncoding.EncodeToString(s1[:]), "="),
		"sha1:" + hex.EncodeToString(s1[:]),
	}
	for i, d := range forms {
		if i == 1 {
			d = "sha256:" + d
		}
		c := newChecker("https://example.com/")
		rec := "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: https://example.com/\r\nContent-Type: application/http;msgtype=response\r\nWARC-Block-Digest: " +
			d + "\r\nContent-Length: " + fmt.Sprint(len(block)) + "\r\n\r\n" + block + "\r\n\r\n"
		for _, b := range []byte(rec) { // one byte at a time: every state boundary falls inside a write
			c.Write([]byte{b})
		}
		if err := c.finish(); err != nil {
			t.Errorf("%s: %v", d, err)
		}
		c = newChecker("https://example.com/")
		c.Write([]byte(strings.Replace(rec, "ok\r\n", "OK\r\n", 1)))
		if err := c.finish(); err == nil {
			t.Errorf("%s: a changed block passes", d)
		}
	}
}

// TestRecordLarge: a record too large to hold is streamed while it is checked; a sound one arrives
// whole in every format, and a damaged one is cut off before its end, so no client takes it for whole.
func TestRecordLarge(t *testing.T) {
	t.Parallel()
	big := make([]byte, maxVerified+1<<20)
	rand.Read(big)
	body := string(big) // incompressible: the gzip member is above the limit too
	for _, tc := range []struct {
		name   string
		member func(rec string) []byte
	}{
		{"sound", func(rec string) []byte { return gzipped(rec) }},
		{"body changed near its end", func(rec string) []byte {
			return gzipped(strings.Replace(rec, body[len(body)-20:], strings.Repeat("x", 20), 1))
		}},
		{"gzip CRC flipped", func(rec string) []byte { return flip(gzipped(rec), -6) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := standard(t)
			rec := warcRecord(damagedCapture, "text/plain", body)
			member := tc.member(rec)
			c := f.releaseMember(damagedCapture, member)
			f.commit()
			o := observe(t, f)
			for i, format := range []struct{ name, whole string }{{"warc.gz", string(member)}, {"warc", rec}, {"payload", body}} {
				resp, got, err := o.fetch(t, "/api/v1/record?url="+url.QueryEscape(c.URL)+"&format="+format.name)
				if tc.name == "sound" {
					if err != nil || resp.StatusCode != 200 || string(got) != format.whole {
						t.Errorf("%s: status %d, %d of %d bytes, read error %v", format.name, resp.StatusCode, len(got), len(format.whole), err)
					}
					continue
				}
				if err == nil || resp.StatusCode != 200 || len(got) >= len(format.whole) {
					t.Errorf("%s: status %d, %d of %d bytes, read error %v: want the answer cut off", format.name, resp.StatusCode, len(got), len(format.whole), err)
				}
				if n := strings.Count(o.log.String(), "level=ERROR"); n != i+1 || !strings.Contains(o.log.String(), "offset="+fmt.Sprint(c.Offset)) {
					t.Errorf("%s: %d errors logged, want %d naming the offset:\n%s", format.name, n, i+1, o.log)
				}
				if got := o.damagedCount(t); got != fmt.Sprint(i+1) {
					t.Errorf("%s: archivectl_lookup_damaged_records_total %s, want %d", format.name, got, i+1)
				}
			}
		})
	}
}
