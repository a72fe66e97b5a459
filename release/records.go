package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The WARC record types the releaser writes itself.
const (
	typeWarcinfo = "warcinfo"
	typeMetadata = "metadata"
)

// recordID is a WARC-Record-ID derived from seed: "<urn:uuid:…>" in the UUID version 8 layout.
// Public records get ids that depend only on what they describe, so a replayed pass writes the same bytes.
func recordID(seed string) string {
	h := sha256.Sum256([]byte("archivectl-release:" + seed))
	h[6] = h[6]&0x0f | 0x80 // version 8
	h[8] = h[8]&0x3f | 0x80 // RFC 9562 variant
	x := hex.EncodeToString(h[:16])
	return fmt.Sprintf("<urn:uuid:%s-%s-%s-%s-%s>", x[0:8], x[8:12], x[12:16], x[16:20], x[20:32])
}

// sha256Digest is the WARC digest of b: "sha256:<lowercase hex>", as the store writes them.
func sha256Digest(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// marshalRecord renders one WARC/1.1 record. The releaser's own records (warcinfo, metadata)
// are small and fully determined by their inputs, so it writes them directly rather than through
// gowarc's builder (whose constructors race on a global of google/uuid, DEPENDENCIES §1.6); every
// reader, gowarc's strict one included, reads them back. Both digests cover the whole block.
func marshalRecord(typ, id string, date time.Time, ctype string, block []byte, fields ...[2]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("WARC/1.1\r\n")
	d := sha256Digest(block)
	all := append([][2]string{
		{"WARC-Type", typ},
		{"WARC-Record-ID", id},
		{"WARC-Date", date.UTC().Format(time.RFC3339Nano)},
	}, fields...)
	all = append(all,
		[2]string{"Content-Type", ctype},
		[2]string{"WARC-Block-Digest", d},
		[2]string{"WARC-Payload-Digest", d},
		[2]string{"Content-Length", strconv.Itoa(len(block))})
	for _, f := range all {
		if f[1] == "" {
			continue
		}
		if strings.ContainsAny(f[1], "\r\n") {
			return nil, fmt.Errorf("release: WARC field %s holds a line break: %q", f[0], f[1])
		}
		b.WriteString(f[0] + ": " + f[1] + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(block)
	b.WriteString("\r\n\r\n")
	return b.Bytes(), nil
}

// warcinfo is the first record of every public file.
func warcinfo(software, name string, pass time.Time, description string) ([]byte, error) {
	block := fmt.Sprintf("software: %s\r\nformat: WARC File Format 1.1\r\nconformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\ndescription: %s\r\nrelease-pass: %s\r\n",
		software, description, pass.UTC().Format(time.RFC3339))
	return marshalRecord(typeWarcinfo, recordID("warcinfo:"+name), pass, "application/warc-fields", []byte(block),
		[2]string{"WARC-Filename", name})
}
