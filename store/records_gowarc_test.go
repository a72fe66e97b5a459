package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

// The records Seal writes itself (warcrecord.go) must be, byte for byte, the records gowarc's
// strict builder and its Marshaler write for the same inputs, compressed into the same gzip
// members, and refused where gowarc refuses them. gowarc is the oracle: these tests build every
// record both ways over a corpus of odd inputs.

// gowarcMember is rec marshalled by gowarc straight into a gzip member, as the store's encoder
// did before it wrote records itself.
func gowarcMember(t *testing.T, rec gowarc.WarcRecord) (raw, member []byte) {
	t.Helper()
	var rb, mb bytes.Buffer
	if _, _, err := gowarc.NewMarshaler().Marshal(&rb, rec, 0); err != nil {
		t.Fatal(err)
	}
	gz, _ := gzip.NewWriterLevel(&mb, gzip.DefaultCompression)
	if _, _, err := gowarc.NewMarshaler().Marshal(gz, rec, 0); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return rb.Bytes(), mb.Bytes()
}

// ownMember is r serialised and compressed by the store's encoder.
func ownMember(t *testing.T, r *record) (raw, member []byte) {
	t.Helper()
	var mb bytes.Buffer
	if _, err := newEncoder().encode(&mb, r); err != nil {
		t.Fatal(err)
	}
	raw = append(r.appendHeader(nil), r.block...)
	return append(raw, crlfcrlf...), mb.Bytes()
}

// sameRecord fails t unless gowarc's record and r serialise and compress to the same bytes.
func sameRecord(t *testing.T, what string, want gowarc.WarcRecord, got *record) {
	t.Helper()
	wr, wm := gowarcMember(t, want)
	gr, gm := ownMember(t, got)
	if !bytes.Equal(wr, gr) {
		t.Errorf("%s: records differ:\n got %q\nwant %q", what, clip(gr), clip(wr))
		return
	}
	if !bytes.Equal(wm, gm) {
		t.Errorf("%s: same record, different gzip members (%d and %d bytes)", what, len(gm), len(wm))
	}
}

func clip(b []byte) string {
	if len(b) > 1500 {
		return string(b[:1500]) + "…"
	}
	return string(b)
}

// gowarcRecord builds a record with gowarc's strict builder and gives it id.
func gowarcRecord(alg string, t gowarc.RecordType, id string, date time.Time, ctype string, block []byte, fields ...field) (gowarc.WarcRecord, error) {
	r, err := buildRecord(alg, t, date, ctype, block, fields...)
	if err == nil {
		r.WarcHeader().Set(gowarc.WarcRecordID, id)
	}
	return r, err
}

// ownResponse builds a response record as Seal does: the URL and date checks of build, then httpRecord.
func ownResponse(alg, id string, date time.Time, block []byte, fields ...field) (*record, int, error) {
	for _, f := range fields {
		if f.name == gowarc.WarcTargetURI {
			if err := checkTargetURI(f.value); err != nil {
				return nil, 0, err
			}
		}
	}
	if err := checkDate(date); err != nil {
		return nil, 0, err
	}
	return httpRecord(alg, gowarc.Response, id, date, typeResponse, block, fields...)
}

// recordCorpus is the inputs: odd URLs, addresses, truncation reasons and dates, and HTTP messages
// of every shape (line ends, empty and large bodies, binary, no end of head, too short).
var recordCorpus = struct {
	urls, ips, truncated []string
	dates                []time.Time
	responses, requests  []string
	bodies               []string
}{
	urls: []string{"https://example.com/a?b=c", "http://example.com", "https://例え.jp/パス?q=ü#frag",
		"http://[2001:db8::1]:8080/x y", "https://example.com/%zz%41", "https://" + strings.Repeat("a", 60) + ".com/" + strings.Repeat("p/", 1500),
		"http://exa mple.com/", "not a url", "https://example.com/\u00a0", "", "https://user:pw@example.com:443/~x;p?q=1&q=2"},
	ips:       []string{"", "192.0.2.1", "2001:db8::1", "::ffff:192.0.2.1"},
	truncated: []string{"", "length", "time", "disconnect", "unspecified", "something else entirely"},
	dates: []time.Time{t0, t0.Add(123456789), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 12, 0, 0, 5000, time.FixedZone("X", -7*3600))},
	responses: []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\nContent-Type: text/html\n\nhello",
		"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + strings.Repeat("<p>payload paragraph</p>\n", 4000),
		"HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n",
		"HTTP/1.1 304 Not Modified\r\n\r\n",
		"HTTP/1.1 200 OK\nContent-Type: text/plain\r\n\nbody\r\n\r\nmore",
		"HTTP/1.1 200 OK\r\nX: y\r\na\nbody",
		"HTTP/1.1 200 OK\r\nX-Long: a\r\n b\r\n\r\nbody",
		"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n",
		"\r\nHTTP/1.1 200 OK\r\n\r\nbody",
		"hello world, not http\r\n\r\nbody",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nWARC/1.1\r\nWARC-Type: response\r\n\r\n\r\n\r\n",
		"HTTP", "HTT", "", "\r\n", "\nab", "\r\n\r\n", "\n\nxy",
	},
	requests: []string{
		"GET /a?b=c HTTP/1.1\r\nHost: example.com\r\nUser-Agent: archivectl-test\r\n\r\n",
		"POST /form HTTP/1.1\r\nHost: example.com\r\nContent-Length: 7\r\n\r\na=1&b=2",
		"GET / HTTP/1.0\n\n",
		"GET / HTTP/1.1\r\nHost: example.com\r\n",
		"GET", "", "HTTP/1.1 200 OK\r\n\r\n",
	},
	bodies: []string{"format: archivectl-capture-facts/2\r\ncapture: <urn:uuid:x>\r\n", "", "url: =?utf-8?b?YT0/Yg==?=\r\noutlink: a\r\noutlink: b\r\n",
		strings.Repeat("outlink: https://example.com/x\r\n", 2000)},
}

// binaryBody is a response with 5 MB of random bytes (every byte value, CR and LF among them).
func binaryBody() string {
	rng := rand.New(rand.NewPCG(7, 8))
	b := make([]byte, 5<<20)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n" + string(b)
}

func TestResponseRecordsAsGowarc(t *testing.T) {
	t.Parallel()
	c := recordCorpus
	orig := []Entry{
		{ID: "<urn:uuid:00000000-0000-4000-8000-000000000001>", URL: "https://example.com/a?b=c", Time: t0},
		{ID: "urn:uuid:00000000-0000-4000-8000-000000000002", URL: "", Time: t0.Add(987654321)},
	}
	n := 0
	check := func(alg, block, u, ip, trunc string, date time.Time) {
		n++
		id := DerivedRecordID(fmt.Sprint(n))
		what := fmt.Sprintf("%s url=%q ip=%q truncated=%q date=%s block=%q", alg, u, ip, trunc, date, clip([]byte(block))[:min(len(block), 40)])
		fields := []field{{gowarc.WarcTargetURI, u}, {gowarc.WarcIPAddress, ip}, {gowarc.WarcTruncated, trunc}}
		want, werr := gowarcRecord(alg, gowarc.Response, id, date, typeResponse, []byte(block), fields...)
		got, headLen, gerr := ownResponse(alg, id, date, []byte(block), fields...)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: error %v, gowarc's error %v", what, gerr, werr)
			return
		}
		if werr != nil {
			return
		}
		defer want.Close()
		sameRecord(t, "response "+what, want, got)
		for _, o := range orig {
			wr, err := want.ToRevisitRecord(&gowarc.RevisitRef{Profile: gowarc.ProfileIdenticalPayloadDigestV1_1,
				TargetRecordId: o.ID, TargetUri: o.URL, TargetDate: o.Time.UTC().Format(time.RFC3339Nano)})
			if err != nil {
				t.Errorf("%s: gowarc revisit: %v", what, err)
				continue
			}
			sameRecord(t, "revisit "+what, wr, got.revisit(alg, headLen, o))
		}
	}
	for _, alg := range []string{"sha256", "sha1"} {
		for _, block := range append(c.responses, binaryBody()) {
			check(alg, block, c.urls[0], c.ips[1], "", t0)
		}
		block := c.responses[0]
		for _, u := range c.urls {
			check(alg, block, u, "192.0.2.1", "", t0)
		}
		for _, ip := range c.ips {
			for _, trunc := range c.truncated {
				check(alg, block, c.urls[0], ip, trunc, t0)
			}
		}
		for _, d := range c.dates {
			check(alg, block, c.urls[0], "", "", d)
		}
	}
}

func TestRequestAndMetadataRecordsAsGowarc(t *testing.T) {
	t.Parallel()
	c := recordCorpus
	capture := "<urn:uuid:00000000-0000-4000-8000-00000000000c>"
	n := 0
	for _, alg := range []string{"sha256", "sha1"} {
		for _, u := range c.urls {
			for _, ip := range c.ips {
				for _, block := range c.requests {
					n++
					id := DerivedRecordID(fmt.Sprint("req", n))
					what := fmt.Sprintf("%s url=%q ip=%q request=%q", alg, u, ip, block)
					fields := []field{{gowarc.WarcTargetURI, u}, {gowarc.WarcIPAddress, ip}, {gowarc.WarcConcurrentTo, capture}}
					want, werr := gowarcRecord(alg, gowarc.Request, id, t0, typeRequest, []byte(block), fields...)
					var got *record
					gerr := checkTargetURI(u)
					if gerr == nil {
						got, _, gerr = httpRecord(alg, gowarc.Request, id, t0, typeRequest, []byte(block), fields...)
					}
					if (werr == nil) != (gerr == nil) {
						t.Errorf("request %s: error %v, gowarc's error %v", what, gerr, werr)
						continue
					}
					if werr == nil {
						sameRecord(t, "request "+what, want, got)
						want.Close()
					}
				}
			}
			for _, body := range c.bodies {
				n++
				id := DerivedRecordID(fmt.Sprint("meta", n))
				what := fmt.Sprintf("%s url=%q body=%q", alg, u, clip([]byte(body))[:min(len(body), 40)])
				fields := []field{{gowarc.WarcTargetURI, u}, {gowarc.WarcConcurrentTo, capture}}
				want, werr := gowarcRecord(alg, gowarc.Metadata, id, t0, typeMetadata, []byte(body), fields...)
				var got *record
				gerr := checkTargetURI(u)
				if gerr == nil {
					got, gerr = fieldsRecord(alg, gowarc.Metadata, id, t0, typeMetadata, []byte(body), fields...)
				}
				if (werr == nil) != (gerr == nil) {
					t.Errorf("metadata %s: error %v, gowarc's error %v", what, gerr, werr)
					continue
				}
				if werr == nil {
					sameRecord(t, "metadata "+what, want, got)
					want.Close()
				}
			}
		}
	}
}

// TestLineBreakInFieldRefused: gowarc would write a value with a line break as is, breaking the
// record's header; the store refuses it.
func TestLineBreakInFieldRefused(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"length\r\nWARC-Type: response", "a\nb", "a\rb"} {
		if _, _, err := httpRecord("sha256", gowarc.Response, "<urn:x>", t0, typeResponse, []byte("HTTP/1.1 200 OK\r\n\r\n"),
			field{gowarc.WarcTruncated, v}); err == nil || !strings.Contains(err.Error(), "line break") {
			t.Errorf("truncated %q: error %v, want a line break refused", v, err)
		}
	}
}

// TestWarcinfoMemberAsBefore: the warcinfo record, still built by gowarc, is marshalled first and
// compressed in one write; the member is the one gowarc's marshaler streaming into gzip wrote.
func TestWarcinfoMemberAsBefore(t *testing.T) {
	t.Parallel()
	s := &Store{opt: Options{Software: "archivectl test", RobotsPolicy: "obey", Operator: "op\nerator", Digest: "sha256", Now: func() time.Time { return t0 }}}
	info, err := s.warcinfo("archivectl-20260301120000000-00001-host.warc.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer info.Close()
	raw, want := gowarcMember(t, info)
	var got bytes.Buffer
	if err := newEncoder().member(&got, raw); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("warcinfo member differs")
	}
}
