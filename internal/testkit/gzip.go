package testkit

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

// Gunzip is the content of every gzip member of b, concatenated; t fails when b is not gzip.
func Gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
