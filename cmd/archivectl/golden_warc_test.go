//go:build unix

package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// warcMember is one gzip member of a WARC file: one record.
type warcMember struct {
	offset, length int64
	gz             []byte // the member as stored
	rec            warcRecord
}

// warcRecord is a record split into its parts, exactly as stored.
type warcRecord struct {
	version string      // "WARC/1.1"
	fields  [][2]string // header fields in order, values as written
	block   []byte
	err     string // what is malformed, "" when nothing
}

// get returns the first value of a header field.
func (r warcRecord) get(name string) string {
	for _, f := range r.fields {
		if strings.EqualFold(f[0], name) {
			return f[1]
		}
	}
	return ""
}

// readWARC splits a .warc.gz file into its gzip members and parses each record.
func readWARC(path string) ([]warcMember, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ms []warcMember
	br := bytes.NewReader(b) // an io.ByteReader: gzip reads no byte past a member
	for br.Len() > 0 {
		off := int64(len(b) - br.Len())
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s at %d: %w", path, off, err)
		}
		zr.Multistream(false)
		raw, err := io.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("%s at %d: %w", path, off, err)
		}
		end := int64(len(b) - br.Len())
		ms = append(ms, warcMember{offset: off, length: end - off, gz: b[off:end], rec: parseRecord(raw)})
	}
	return ms, nil
}

// parseRecord splits one uncompressed record: version line, fields, Content-Length bytes of
// block, CRLF CRLF.
func parseRecord(raw []byte) warcRecord {
	var r warcRecord
	head, rest, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		r.err = "no end of header"
		r.block = raw
		return r
	}
	lines := strings.Split(string(head), "\r\n")
	r.version = lines[0]
	for _, l := range lines[1:] {
		name, value, _ := strings.Cut(l, ":")
		r.fields = append(r.fields, [2]string{name, strings.TrimPrefix(value, " ")})
	}
	n, err := strconv.Atoi(r.get("Content-Length"))
	switch {
	case err != nil || n < 0 || n > len(rest):
		r.err = "Content-Length does not fit the record"
		r.block = rest
	case string(rest[n:]) != "\r\n\r\n":
		r.err = fmt.Sprintf("%d bytes after the block instead of CRLF CRLF", len(rest)-n)
		r.block = rest
	default:
		r.block = rest[:n]
	}
	return r
}

// digestOK reports whether a WARC digest ("sha256:hex" or "sha1:base32") is the digest of b.
func digestOK(d string, b []byte) bool {
	alg, val, _ := strings.Cut(d, ":")
	switch strings.ToLower(alg) {
	case "sha256":
		h := sha256.Sum256(b)
		return strings.EqualFold(val, hex.EncodeToString(h[:]))
	case "sha1":
		h := sha1.Sum(b)
		return strings.EqualFold(val, base32.StdEncoding.EncodeToString(h[:]))
	}
	return false
}

// visible shows CR as ␍ so that line ends are compared, and read, exactly.
func visible(s string) string { return strings.ReplaceAll(s, "\r", "␍") }

// render writes one record, normalised: its fields in order, then its block. Content-Length and
// the digests are checked against the bytes; a checked value is written as {… ok} only when the
// bytes it covers hold a normalised value (of variable width, for a length), else as it is.
func (n *normaliser) render(r warcRecord) string {
	var b strings.Builder
	if r.err != "" {
		fmt.Fprintf(&b, "!! malformed record: %s\n", r.err)
	}
	block, blockChanged, blockVariable := n.text(string(r.block))
	binary := !utf8.Valid(r.block) || strings.Contains(block, "␍")
	payload, payloadChanged := r.block, blockChanged
	if strings.HasPrefix(r.get("Content-Type"), "application/http") {
		if _, p, ok := bytes.Cut(r.block, []byte("\r\n\r\n")); ok {
			payload = p
			_, payloadChanged, _ = n.text(string(p))
		}
	}
	fmt.Fprintf(&b, "%s␍\n", r.version)
	for _, f := range r.fields {
		v, _, _ := n.text(f[1])
		switch {
		case strings.EqualFold(f[0], "Content-Length"):
			switch {
			case f[1] != strconv.Itoa(len(r.block)):
				v = "{length WRONG: " + v + "}"
			case blockVariable:
				v = "{length ok}"
			}
		case strings.EqualFold(f[0], "WARC-Block-Digest"):
			v = checked(f[1], v, r.block, blockChanged)
		case strings.EqualFold(f[0], "WARC-Payload-Digest") && r.get("WARC-Type") != "revisit":
			v = checked(f[1], v, payload, payloadChanged)
		}
		fmt.Fprintf(&b, "%s: %s␍\n", f[0], v)
	}
	b.WriteString("␍\n")
	if binary {
		fmt.Fprintf(&b, "(binary block of %d bytes)\n", len(r.block))
	} else {
		b.WriteString(visible(block))
	}
	if r.err == "" {
		b.WriteString("␍\n␍\n")
	}
	return b.String()
}

// checked writes a digest field: verified against covered, then as it is, or as "alg:{ok}" when
// covered held a normalised value.
func checked(raw, normalised string, covered []byte, changed bool) string {
	alg, _, _ := strings.Cut(raw, ":")
	switch {
	case !digestOK(raw, covered):
		return "{digest WRONG: " + normalised + "}"
	case changed:
		return alg + ":{ok}"
	}
	return normalised
}

// groupByOrigin orders items by the demo origin of their URL (none first), keeping the file's
// order within an origin: the crawler fetches origins in parallel, so only the order within one
// origin repeats from run to run.
func groupByOrigin[T any](n *normaliser, items []T, url func(T) string) {
	key := func(x T) string {
		o, _, _ := strings.Cut(n.short(url(x)), "/")
		return o
	}
	sort.SliceStable(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
}

// lineDiff describes how got differs from want: each hunk of differing lines as - (golden) and +
// (this run) after the golden line number and two lines of context; at most ten hunks.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	// agree reports that w from a and g from b start alike: three lines, or both ends.
	agree := func(a, b int) bool {
		for k := 0; k < 3; k++ {
			if a+k == len(w) || b+k == len(g) {
				return a+k == len(w) && b+k == len(g)
			}
			if w[a+k] != g[b+k] {
				return false
			}
		}
		return true
	}
	// resync finds the nearest lines after i and j from which w and g agree again.
	resync := func(i, j int) (int, int) {
		for k := 1; k <= 400; k++ {
			for di := 0; di <= k; di++ {
				if a, b := i+di, j+k-di; a <= len(w) && b <= len(g) && agree(a, b) {
					return a, b
				}
			}
		}
		return len(w), len(g)
	}
	var b strings.Builder
	for i, j, hunks := 0, 0, 0; i < len(w) || j < len(g); {
		if i < len(w) && j < len(g) && w[i] == g[j] {
			i, j = i+1, j+1
			continue
		}
		if hunks++; hunks > 10 {
			b.WriteString("… and more\n")
			break
		}
		a, c := resync(i, j)
		fmt.Fprintf(&b, "@@ golden line %d @@\n", i+1)
		for _, l := range w[max(i-2, 0):i] {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		for _, l := range w[i:a] {
			fmt.Fprintf(&b, "- %s\n", l)
		}
		for _, l := range g[j:c] {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
		i, j = a, c
	}
	return b.String()
}
