package warcrecord

import (
	"bufio"
	"bytes"
	"testing"
)

// FuzzReadHeader: any bytes give a header or an error, never a panic, and a header read never
// took more than MaxHeader bytes.
func FuzzReadHeader(f *testing.F) {
	f.Add([]byte("WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 0\r\n\r\n"))
	f.Add([]byte("WARC/1.0\n X: y\n\n"))
	f.Add([]byte("WARC/1.1\r\nA: b\r\n c\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		if _, err := ReadHeader(bufio.NewReaderSize(r, 16)); err == nil && len(b)-r.Len() > MaxHeader+16 {
			t.Fatalf("a header of %d bytes read", len(b)-r.Len())
		}
	})
}
