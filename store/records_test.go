package store

import (
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/gzip"
)

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
