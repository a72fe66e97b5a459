package lookup

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// FuzzParseLine: any bytes either parse into a line with a valid state and times, or fail; never panic.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`com,example)/a 20261129200000 {"url":"https://example.com/a","status":200,"digest":"sha256:aa","length":10,"offset":0,"filename":"tombstones/T.warc.gz","release_at":"2027-02-27T20:00:00Z","id":"<urn:uuid:1>","state":"embargoed","time":"2026-11-29T20:00:00Z","headers":[["Content-Type","text/html"]]}`))
	f.Add([]byte(`com,example)/a?q=a b {x} 20261129200000 {"url":"https://example.com/a?q=a b","digest":"","length":0,"offset":0,"filename":"","release_at":"2027-02-27T20:00:00Z","id":"","state":"released","time":"2026-11-29T20:00:00Z"}`))
	f.Add([]byte("com,example)/ 2026 {}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parseLine(b)
		if err != nil {
			return
		}
		if st := string(p.f.state); st != stateReleased && st != stateEmbargoed {
			t.Fatalf("state %q accepted", st)
		}
		if len(p.timestamp) != 14 || len(p.f.url) == 0 {
			t.Fatalf("accepted %+v", p)
		}
		if p.f.headers != nil && (!json.Valid(p.f.headers) || p.f.headers[0] != '[') {
			t.Fatalf("headers %q kept", p.f.headers)
		}
	})
}

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

// FuzzFastFields: whenever the fast JSON path accepts a block, encoding/json reads the same fields.
func FuzzFastFields(f *testing.F) {
	f.Add([]byte(`{"url":"https://example.com/a","mime":"text/html","status":200,"digest":"sha256:aa","length":512,"offset":0,"filename":"tombstones/T.warc.gz","usage":["train-ai=n"],"release_at":"2027-02-27T20:00:00Z","id":"<urn:uuid:1>","state":"embargoed","time":"2026-11-29T20:00:00Z","headers":[["Content-Type","text/html"]]}`))
	f.Add([]byte(`{"url":"https://example.com/\u00e9?a=\"b\"","status":-0,"revisit":true,"refers_to":"x","usage":[],"headers":[]}`))
	f.Add([]byte(`{"URL":"x","Status":1}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := fastFields(b)
		if !ok {
			return
		}
		slow, err := slowFields(b)
		if err != nil {
			t.Fatalf("fast path accepted what encoding/json rejects: %v", err)
		}
		norm := func(f fields) [14]string {
			if f.idEscaped {
				var id string
				if err := json.Unmarshal(append(append([]byte{'"'}, f.id...), '"'), &id); err != nil {
					t.Fatalf("id %q: %v", f.id, err)
				}
				if dec, ok := unescape(nil, f.id); ok && string(dec) != id {
					t.Fatalf("unescape(%q) = %q, encoding/json %q", f.id, dec, id)
				}
				f.id = []byte(id)
			}
			return [14]string{string(f.url), string(f.mime), string(f.digest), string(f.filename), string(f.releaseAt),
				string(f.id), string(f.state), string(f.time), string(canon(t, f.usage)), string(canon(t, f.headers)),
				itoa(int(f.status)), itoa(int(f.length)), itoa(int(f.offset)), itoa(map[bool]int{true: 1}[f.revisit])}
		}
		if a, b := norm(fast), norm(slow); a != b {
			t.Fatalf("fast %+v\nslow %+v", a, b)
		}
	})
}

// canon re-encodes raw JSON so that two encodings of one value compare equal; nil stays nil.
func canon(t *testing.T, raw []byte) []byte {
	if raw == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("raw JSON %q: %v", raw, err)
	}
	if l, ok := v.([]any); ok && len(l) == 0 {
		return nil // an empty list means the same as none
	}
	b, _ := json.Marshal(v)
	return b
}

// FuzzParseTime: the allocation-free path agrees with time.Parse on every input it accepts.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-11-29T20:00:00Z", "2026-02-29T00:00:00Z", "2024-02-29T23:59:59.5Z", "2026-11-29T20:00:00.123456789Z", "2026-11-29T20:00:00+01:00", "0000-01-01T00:00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := fastTime([]byte(s))
		if !ok {
			return
		}
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("fastTime accepted %q, time.Parse: %v", s, err)
		}
		if want.UnixNano() != n {
			t.Fatalf("fastTime(%q) = %d, time.Parse = %d", s, n, want.UnixNano())
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
