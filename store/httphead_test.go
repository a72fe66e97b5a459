package store

import (
	"bytes"
	"slices"
	"testing"
)

func TestParseResponseHead(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		raw     string
		status  int
		headers [][2]string
		body    int
		mime    string
		fail    bool
	}{
		{"plain", "HTTP/1.1 200 OK\r\nContent-Type: Text/HTML; charset=utf-8\r\nX-A:  b \r\n\r\nbody", 200,
			[][2]string{{"Content-Type", "Text/HTML; charset=utf-8"}, {"X-A", "b"}}, 69, "text/html", false},
		{"no reason phrase", "HTTP/1.0 404\r\n\r\n", 404, nil, 16, "", false},
		{"LF only", "HTTP/1.1 301 Moved\nLocation: /x\n\nrest", 301, [][2]string{{"Location", "/x"}}, 33, "", false},
		{"folded line", "HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\n\r\n", 200, [][2]string{{"X-Long", "a b"}}, 35, "", false},
		{"order and duplicates kept", "HTTP/1.1 200 OK\r\nSet-Cookie: a\r\nSet-Cookie: b\r\n\r\n", 200,
			[][2]string{{"Set-Cookie", "a"}, {"Set-Cookie", "b"}}, 49, "", false},
		{"no end of head", "HTTP/1.1 200 OK\r\nA: b\r\n", 0, nil, 0, "", true},
		{"not HTTP", "GET / HTTP/1.1\r\n\r\n", 0, nil, 0, "", true},
		{"bad code", "HTTP/1.1 2x0 OK\r\n\r\n", 0, nil, 0, "", true},
		{"field without colon", "HTTP/1.1 200 OK\r\nnocolon\r\n\r\n", 0, nil, 0, "", true},
		{"space in name", "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", 0, nil, 0, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := parseResponseHead([]byte(tc.raw))
			if (err != nil) != tc.fail {
				t.Fatalf("err = %v, want failure %v", err, tc.fail)
			}
			if tc.fail {
				return
			}
			if h.Status != tc.status || h.Body != tc.body || h.mime() != tc.mime || !slices.Equal(h.Headers, tc.headers) {
				t.Errorf("got %+v mime %q", h, h.mime())
			}
		})
	}
}

func FuzzParseResponseHead(f *testing.F) {
	for _, s := range []string{"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nx", "HTTP/1.1 301 Moved\nLocation: /x\n\n", "HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		h, err := parseResponseHead(raw)
		if err != nil {
			return
		}
		if h.Status < 100 || h.Status > 999 || h.Body > len(raw) || h.Body < 0 {
			t.Fatalf("impossible head %+v for %d bytes", h, len(raw))
		}
		for _, f := range h.Headers {
			if f[0] == "" {
				t.Fatalf("empty field name in %+v", h)
			}
		}
	})
}

func FuzzParseFacts(f *testing.F) {
	b, _ := facts{Capture: "<urn:uuid:x>", URL: "https://e.com/", Period: 90}.encode()
	f.Add(b)
	all, _ := allFacts.encode()
	f.Add(all)
	f.Add([]byte(`{"format":"archivectl-capture-facts/1"}`))
	f.Add([]byte(`{"format":"archivectl-capture-facts/1","capture":"<x>","usage":["a"],"outlinks":["b"],"first_seen":"2026-03-01T12:00:00Z"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		fa, err := parseFacts(raw)
		if err != nil {
			return
		}
		b, err := fa.encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := parseFacts(b)
		if err != nil {
			t.Fatalf("re-encoded facts do not parse: %v", err)
		}
		if b2, err := again.encode(); err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("facts change on a round trip:\n%s\n%s", b, b2)
		}
	})
}
