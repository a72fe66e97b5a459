package lookup

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzReadPayload: any decompressed record either yields a payload or an error; never a panic,
// and never a body longer than the record holds.
func FuzzReadPayload(f *testing.F) {
	f.Add([]byte("WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: https://example.com/\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: 44\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"))
	f.Add([]byte("WARC/1.1\r\nWARC-Type: response\r\nContent-Type: application/http\r\nContent-Length: 60\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"))
	f.Add([]byte("WARC/1.1\r\nWARC-Type: metadata\r\n\r\n"))
	f.Add([]byte("GIF89a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := readPayload(bytes.NewReader(b))
		if err != nil {
			return
		}
		body, _ := io.ReadAll(p.body)
		if len(body) > len(b) {
			t.Fatalf("payload of %d bytes from a record of %d", len(body), len(b))
		}
	})
}

// FuzzParseCursor: a cursor that parses encodes back to one that parses to the same position.
func FuzzParseCursor(f *testing.F) {
	f.Add(cursor{key: "com,example)/a", time: 1, file: "shards/P.warc.gz", offset: 7}.String())
	f.Add("WyJhIiwxLCJiIiwyXQ")
	f.Add("not a cursor")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseCursor(s)
		if err != nil {
			return
		}
		again, err := parseCursor(c.String())
		if err != nil || again != c {
			t.Fatalf("round trip of %+v gave %+v, %v", c, again, err)
		}
		if strings.ContainsRune(c.String(), '=') {
			t.Fatal("cursor is not URL-safe")
		}
	})
}

// FuzzAppendString: the hand encoder writes strings exactly as encoding/json does.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"https://example.com/a", `a"b\\c`, "<script>&", "caf\u00e9", "\x00\x7f\xff", "train-ai=n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}
