package store

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

// TestBuildResponseSameBytes checks that buildResponse and the encoder write, member for member,
// the bytes that building the whole record with gowarc and its Marshaler write, revisits included.
func TestBuildResponseSameBytes(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("<p>payload paragraph</p>\n", 4000)
	cases := []struct {
		name, block string
	}{
		{"crlf", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello"},
		{"lf", "HTTP/1.1 200 OK\nContent-Type: text/html\n\nhello"},
		{"large body", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + big},
		{"empty body", "HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n"},
		{"mixed line ends", "HTTP/1.1 200 OK\nContent-Type: text/plain\r\n\nbody\r\n\r\nmore"},
		{"short line ends the head", "HTTP/1.1 200 OK\r\nX: y\r\na\nbody"},
		{"folded field", "HTTP/1.1 200 OK\r\nX-Long: a\r\n b\r\n\r\nbody"},
		{"no end of head", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"},
		{"head at the start", "\r\nHTTP/1.1 200 OK\r\n\r\nbody"},
		{"no status line", "hello world, not http\r\n\r\nbody"},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
	}
	for _, alg := range []string{"sha256", "sha1"} {
		for _, tc := range cases {
			t.Run(alg+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				fields := []field{{gowarc.WarcTargetURI, "https://example.com/a?b=c"}, {gowarc.WarcIPAddress, "192.0.2.1"}, {gowarc.WarcTruncated, ""}}
				want, werr := buildRecord(alg, gowarc.Response, t0, typeResponse, []byte(tc.block), fields...)
				got, headOnly, gerr := buildResponse(alg, t0, []byte(tc.block), fields...)
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("buildResponse error %v, gowarc error %v", gerr, werr)
				}
				if werr != nil {
					return
				}
				defer want.Close()
				defer got.Close()
				got.WarcHeader().Set(gowarc.WarcRecordID, want.WarcHeader().Get(gowarc.WarcRecordID)) // ids are random
				var block []byte
				if headOnly {
					block = []byte(tc.block)
				}
				if w, g := encodeOne(t, encMember{rec: want}), encodeOne(t, encMember{rec: got, block: block}); !bytes.Equal(w, g) {
					t.Errorf("response bytes differ:\n got %q\nwant %q", gunzip(t, g), gunzip(t, w))
				}
				orig := Entry{ID: "<urn:uuid:00000000-0000-4000-8000-000000000001>", URL: "https://example.com/a?b=c", Time: t0}
				wr, werr := toRevisit(want, orig)
				gr, gerr := toRevisit(got, orig)
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("revisit error %v, gowarc error %v", gerr, werr)
				}
				if werr != nil {
					return
				}
				defer wr.Close()
				defer gr.Close()
				gr.WarcHeader().Set(gowarc.WarcRecordID, wr.WarcHeader().Get(gowarc.WarcRecordID))
				if w, g := encodeOne(t, encMember{rec: wr}), encodeOne(t, encMember{rec: gr}); !bytes.Equal(w, g) {
					t.Errorf("revisit bytes differ:\n got %q\nwant %q", gunzip(t, g), gunzip(t, w))
				}
			})
		}
	}
}

func encodeOne(t *testing.T, m encMember) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := newEncoder().encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestHTTPHeadLen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, block string
		want        int
	}{
		{"crlf", "A: b\r\n\r\nbody", 8},
		{"lf", "A: b\n\nbody", 6},
		{"short line", "A: b\nx\nbody", 7},
		{"none", "A: b\r\nC: d", -1},
		{"empty", "", -1},
	} {
		if got := httpHeadLen([]byte(tc.block)); got != tc.want {
			t.Errorf("%s: httpHeadLen = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// gunzip is the content of a gzip member, for error messages.
func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err.Error()
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return err.Error()
	}
	if len(out) > 2000 {
		out = append(out[:2000], "…"...)
	}
	return string(out)
}
