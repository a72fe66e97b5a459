package warcrecord

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Marshal renders one WARC/1.1 record: WARC-Type, WARC-Record-ID, WARC-Date, fields (empty
// values left out), Content-Type, WARC-Block-Digest (the SHA-256 of the block) and Content-Length.
// It has no WARC-Payload-Digest: the records written this way (warcinfo, metadata) have no
// payload (WARC 1.1 §5.9). The releaser's own records (warcinfo, metadata) are small
// and fully determined by their inputs, so it writes them directly rather than through gowarc's
// builder (whose constructors race on a global of google/uuid, docs/architecture.md#gowarc-uuid-race); every reader,
// gowarc's strict one included, reads them back.
func Marshal(typ, id string, date time.Time, ctype string, block []byte, fields ...[2]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("WARC/1.1\r\n")
	sum := sha256.Sum256(block)
	d := Format("sha256", sum[:])
	all := append([][2]string{
		{"WARC-Type", typ},
		{"WARC-Record-ID", id},
		{"WARC-Date", date.UTC().Format(time.RFC3339Nano)},
	}, fields...)
	all = append(all,
		[2]string{"Content-Type", ctype},
		[2]string{"WARC-Block-Digest", d},
		[2]string{"Content-Length", strconv.Itoa(len(block))})
	for _, f := range all {
		if f[1] == "" {
			continue
		}
		if strings.ContainsAny(f[1], "\r\n") {
			return nil, fmt.Errorf("WARC field %s holds a line break: %q", f[0], f[1])
		}
		b.WriteString(f[0] + ": " + f[1] + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(block)
	b.WriteString("\r\n\r\n")
	return b.Bytes(), nil
}

// WarcinfoBlock is the application/warc-fields block of a warcinfo record: software, the WARC
// format and the specification it conforms to, then fields in order. Empty values are left out;
// a line break in a value becomes a space.
func WarcinfoBlock(software string, fields ...[2]string) []byte {
	var b strings.Builder
	for _, f := range append([][2]string{
		{"software", software},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
	}, fields...) {
		if f[1] != "" {
			fmt.Fprintf(&b, "%s: %s\r\n", f[0], strings.ReplaceAll(f[1], "\n", " "))
		}
	}
	return []byte(b.String())
}
