package export

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// warcinfoMember is the gzip member of the warcinfo record that starts a WARC file the export
// writes itself (a shard's selected records): what the file holds and where it comes from. Its id
// is derived from the file's name and the export's time, so an export repeated at the same time
// writes the same bytes. It has no WARC-Payload-Digest: a warcinfo record has no payload.
func warcinfoMember(name string, created time.Time, software, description string) ([]byte, error) {
	oneLine := strings.NewReplacer("\r", " ", "\n", " ").Replace
	var block strings.Builder
	for _, f := range [][2]string{
		{"software", software},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
		{"description", description},
	} {
		if f[1] != "" {
			fmt.Fprintf(&block, "%s: %s\r\n", f[0], oneLine(f[1]))
		}
	}
	sum := sha256.Sum256([]byte(block.String()))
	var rec bytes.Buffer
	rec.WriteString("WARC/1.1\r\n")
	for _, f := range [][2]string{
		{"WARC-Type", "warcinfo"},
		{"WARC-Record-ID", derivedID("archivectl-export:warcinfo:" + name + ":" + created.UTC().Format(time.RFC3339Nano))},
		{"WARC-Date", created.UTC().Format(time.RFC3339Nano)},
		{"WARC-Filename", oneLine(name)},
		{"Content-Type", "application/warc-fields"},
		{"WARC-Block-Digest", "sha256:" + hex.EncodeToString(sum[:])},
		{"Content-Length", fmt.Sprint(block.Len())},
	} {
		rec.WriteString(f[0] + ": " + f[1] + "\r\n")
	}
	rec.WriteString("\r\n" + block.String() + "\r\n\r\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(rec.Bytes()); err != nil {
		return nil, fmt.Errorf("warcinfo: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("warcinfo: %w", err)
	}
	return gz.Bytes(), nil
}

// derivedID is a WARC-Record-ID that depends only on seed: "<urn:uuid:…>", a version 8 UUID made
// of the first 16 bytes of seed's SHA-256.
func derivedID(seed string) string {
	h := sha256.Sum256([]byte(seed))
	u := h[:16]
	u[6] = u[6]&0x0f | 8<<4
	u[8] = u[8]&0x3f | 0x80
	x := hex.EncodeToString(u)
	return "<urn:uuid:" + x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:] + ">"
}
