// Package warcrecord is the one codec of WARC 1.1 record headers and digests that every reader of
// this module's own WARC files shares (the store's writer, the release pass's checks, the export
// and the lookup): the version line and named fields up to the blank line, and the
// "algorithm:value" digests with the algorithms and encodings accepted everywhere alike, and the
// small records written without gowarc's builder (Marshal, WarcinfoBlock: the store's warcinfo,
// the release pass's warcinfo and tombstones). It uses only the standard library.
package warcrecord

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/textproto"
	"strings"
)

// MaxHeader is the most bytes a record's header may take, version line and blank line included.
const MaxHeader = 64 << 10

// ErrMalformed is what every header error wraps: the bytes are not a WARC record header.
var ErrMalformed = errors.New("malformed WARC header")

// ReadHeader reads a record's version line ("WARC/1.0" or "WARC/1.1") and its named fields up to
// the blank line that ends them, continuation lines joined to their field. A line longer than
// br's buffer is read whole; a header over MaxHeader is an error. Errors of br are wrapped as
// they are (io.EOF, io.ErrUnexpectedEOF, a gzip checksum error); the others wrap ErrMalformed.
func ReadHeader(br *bufio.Reader) (textproto.MIMEHeader, error) {
	h := textproto.MIMEHeader{}
	size, last := 0, ""
	for i := 0; ; i++ {
		line, err := readLine(br, MaxHeader-size)
		if err != nil {
			return nil, err
		}
		size += len(line)
		s := strings.TrimRight(string(line), "\r\n")
		switch {
		case i == 0:
			if !strings.HasPrefix(s, "WARC/1.") {
				return nil, fmt.Errorf("%w: starts %q", ErrMalformed, trunc(s, 20))
			}
		case s == "":
			return h, nil
		case (s[0] == ' ' || s[0] == '\t') && last != "":
			vs := h[last]
			vs[len(vs)-1] += " " + strings.TrimSpace(s)
		default:
			name, value, ok := strings.Cut(s, ":")
			if !ok || strings.TrimSpace(name) == "" {
				return nil, fmt.Errorf("%w: line %q has no field name and colon", ErrMalformed, trunc(s, 40))
			}
			last = textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))
			h[last] = append(h[last], strings.TrimSpace(value))
		}
	}
}

// readLine reads one line of at most limit bytes, however small br's buffer.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(long) <= limit {
			line, err = br.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	switch {
	case len(line) > limit:
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrMalformed, MaxHeader)
	case err != nil:
		return nil, fmt.Errorf("WARC header: %w", err)
	}
	return line, nil
}

// ErrDigest is what every digest error wraps: a digest that is missing, not "algorithm:value",
// or of an algorithm no reader here checks.
var ErrDigest = errors.New("unusable WARC digest")

// NewHash returns a hash of the algorithm WARC digest d ("algorithm:value") names, and the
// algorithm in lower case: sha1, sha256 or sha512.
func NewHash(d string) (alg string, h hash.Hash, err error) {
	a, _, ok := strings.Cut(d, ":")
	if d == "" {
		return "", nil, fmt.Errorf("%w: missing", ErrDigest)
	}
	if !ok {
		return "", nil, fmt.Errorf("%w: %q is not algorithm:value", ErrDigest, trunc(d, 80))
	}
	switch alg = strings.ToLower(a); alg {
	case "sha1":
		return alg, sha1.New(), nil
	case "sha256":
		return alg, sha256.New(), nil
	case "sha512":
		return alg, sha512.New(), nil
	}
	return "", nil, fmt.Errorf("%w: algorithm %q", ErrDigest, trunc(a, 20))
}

// Matches reports whether the value of WARC digest d is sum, written in base16 (either case) or
// base32 (padded or not), the two forms WARC writers use.
func Matches(d string, sum []byte) bool {
	_, v, _ := strings.Cut(d, ":")
	if b, err := hex.DecodeString(v); err == nil && bytes.Equal(b, sum) {
		return true
	}
	b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(strings.TrimRight(v, "=")))
	return err == nil && bytes.Equal(b, sum)
}

// Format writes sum as a WARC digest of alg the way this archive's records carry it, as gowarc
// writes them: "sha1:<base32>", any other algorithm "<alg>:<lowercase hex>".
func Format(alg string, sum []byte) string {
	if alg == "sha1" {
		return "sha1:" + base32.StdEncoding.EncodeToString(sum)
	}
	return alg + ":" + hex.EncodeToString(sum)
}

// trunc shortens s to n bytes for an error message.
func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
