package warcrecord

import (
	"bufio"
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadHeader(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 9000)
	tests := []struct {
		name, in string
		want     map[string]string
		err      error
	}{
		{"fields", "WARC/1.1\r\nWARC-Type: response\r\nwarc-record-id: <urn:uuid:x>\r\nContent-Length: 12\r\n\r\nbody", map[string]string{"Warc-Type": "response", "Warc-Record-Id": "<urn:uuid:x>", "Content-Length": "12"}, nil},
		{"WARC/1.0 and LF only", "WARC/1.0\nWARC-Type: warcinfo\n\n", map[string]string{"Warc-Type": "warcinfo"}, nil},
		{"continuation line", "WARC/1.1\r\nWARC-Warcinfo-ID: a\r\n  b\r\n\r\n", map[string]string{"Warc-Warcinfo-Id": "a b"}, nil},
		{"a line longer than the buffer", "WARC/1.1\r\nWARC-Target-URI: http://x/" + long + "\r\n\r\n", map[string]string{"Warc-Target-Uri": "http://x/" + long}, nil},
		{"not WARC", "HTTP/1.1 200 OK\r\n\r\n", nil, ErrMalformed},
		{"no colon", "WARC/1.1\r\nnonsense\r\n\r\n", nil, ErrMalformed},
		{"over the limit", "WARC/1.1\r\nX: " + strings.Repeat("b", MaxHeader) + "\r\n\r\n", nil, ErrMalformed},
		{"cut short", "WARC/1.1\r\nWARC-Type: resp", nil, io.EOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := ReadHeader(bufio.NewReaderSize(strings.NewReader(tc.in), 16))
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("ReadHeader = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if got := h.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestDigests(t *testing.T) {
	t.Parallel()
	s256, s1 := sha256.Sum256([]byte("x")), sha1.Sum([]byte("x"))
	for _, tc := range []struct {
		d    string
		sum  []byte
		want bool
	}{
		{Format("sha256", s256[:]), s256[:], true},
		{strings.ToUpper(Format("sha256", s256[:])), s256[:], true},
		{Format("sha1", s1[:]), s1[:], true},
		{"sha1:" + strings.ToLower(strings.TrimRight(Format("sha1", s1[:])[5:], "=")), s1[:], true},
		{Format("sha1", s1[:]), s256[:], false},
	} {
		if got := Matches(tc.d, tc.sum); got != tc.want {
			t.Errorf("Matches(%q) = %v, want %v", tc.d, got, tc.want)
		}
	}
	for d, want := range map[string]string{"sha1:AAAA": "sha1", "SHA256:ab": "sha256", "sha512:00": "sha512"} {
		if alg, h, err := NewHash(d); err != nil || alg != want || h == nil {
			t.Errorf("NewHash(%q) = %q, %v, %v", d, alg, h, err)
		}
	}
	for _, d := range []string{"", "nocolon", "md5:00"} {
		if _, _, err := NewHash(d); !errors.Is(err, ErrDigest) {
			t.Errorf("NewHash(%q) = %v, want ErrDigest", d, err)
		}
	}
}
