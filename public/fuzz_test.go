package public

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

// FuzzParse: any bytes either parse into a line with a valid state and times, or fail; never panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`com,example)/a 20261129200000 {"url":"https://example.com/a","status":200,"digest":"sha256:aa","length":10,"offset":0,"filename":"tombstones/T.warc.gz","release_at":"2027-02-27T20:00:00Z","embargo_source":"header","id":"<urn:uuid:1>","state":"embargoed","time":"2026-11-29T20:00:00Z","headers":[["Content-Type","text/html"]]}`))
	f.Add([]byte(`com,example)/a?q=a b {x} 20261129200000 {"url":"https://example.com/a?q=a b","digest":"","length":0,"offset":0,"filename":"","release_at":"2027-02-27T20:00:00Z","id":"","state":"released","time":"2026-11-29T20:00:00Z"}`))
	f.Add([]byte("com,example)/ 2026 {}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			return
		}
		if st := string(p.Block.State); st != StateReleased && st != StateTombstone && st != StateEmbargoed {
			t.Fatalf("state %q accepted", st)
		}
		if len(p.Timestamp) != 14 || len(p.Block.URL) == 0 || bytes.IndexByte(p.Key, ' ') >= 0 {
			t.Fatalf("accepted %+v", p)
		}
		if p.Block.Headers != nil && (!json.Valid(p.Block.Headers) || p.Block.Headers[0] != '[') {
			t.Fatalf("headers %q kept", p.Block.Headers)
		}
		if _, err := p.Line(); err != nil {
			t.Fatalf("Parse accepted %q, Line: %v", b, err)
		}
	})
}

// FuzzFastFields: whenever the fast JSON path accepts a block, encoding/json reads the same fields.
func FuzzFastFields(f *testing.F) {
	f.Add([]byte(`{"url":"https://example.com/a","mime":"text/html","status":200,"digest":"sha256:aa","length":512,"offset":0,"filename":"tombstones/T.warc.gz","usage":["train-ai=n"],"usage_robots":["train-ai=n, search=y"],"usage_header":["x=\"y\""],"release_at":"2027-02-27T20:00:00Z","id":"<urn:uuid:1>","state":"embargoed","time":"2026-11-29T20:00:00Z","headers":[["Content-Type","text/html"]]}`))
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
		norm := func(f Fields) [18]string {
			if f.IDEscaped {
				var id string
				if err := json.Unmarshal(append(append([]byte{'"'}, f.ID...), '"'), &id); err != nil {
					t.Fatalf("id %q: %v", f.ID, err)
				}
				if dec, ok := unescape(nil, f.ID); ok && string(dec) != id {
					t.Fatalf("unescape(%q) = %q, encoding/json %q", f.ID, dec, id)
				}
				if dec, err := f.AppendID(nil); err != nil || string(dec) != id {
					t.Fatalf("AppendID = %q, %v; encoding/json %q", dec, err, id)
				}
				f.ID = []byte(id)
			}
			return [18]string{string(f.EmbargoSource), string(canon(t, f.UsageRobots)), string(canon(t, f.UsageHeader)), string(f.URL), string(f.Mime), string(f.Digest), string(f.Filename), string(f.ReleaseAt),
				string(f.ID), string(f.State), string(f.Time), string(f.RefersTo), string(canon(t, f.Usage)), string(canon(t, f.Headers)),
				strconv.FormatInt(f.Status, 10), strconv.FormatInt(f.Length, 10), strconv.FormatInt(f.Offset, 10), strconv.FormatBool(f.Revisit)}
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
