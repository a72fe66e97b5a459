package export

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/archivectl/archivectl/public"
)

// stdBlock is the JSON block of a standard CDXJ line: the keys of the CDXJ specification
// (url, mime, status, digest, length, offset, filename) and no other, in the order pywb's
// cdxj-indexer writes them, and with its value types: status, length and offset as strings.
type stdBlock struct {
	URL      string `json:"url"`
	Mime     string `json:"mime"` // public.WireMime: warc/revisit for a revisit, unk for none
	Status   string `json:"status,omitempty"`
	Digest   string `json:"digest,omitempty"`
	Length   string `json:"length"`
	Offset   string `json:"offset"`
	Filename string `json:"filename"`
}

// stdLine renders one standard CDXJ line, newline included: "KEY TIMESTAMP {json}\n". The JSON
// keeps "&", "<" and ">" as they are (json.Marshal would escape them).
func stdLine(c *Capture, digest, filename string, offset int64) ([]byte, error) {
	key := c.Key
	if key == "" || strings.ContainsAny(key, " \n") {
		key = c.SURT // the public key, which never holds either
	}
	b := stdBlock{URL: c.URL, Mime: public.WireMime(c.Mime, c.Revisit), Digest: digest, Length: strconv.FormatInt(c.Length, 10),
		Offset: strconv.FormatInt(offset, 10), Filename: filename}
	if c.Status > 0 {
		b.Status = strconv.Itoa(c.Status)
	}
	var buf bytes.Buffer
	buf.WriteString(key + " " + c.Timestamp + " ")
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil { // Encode ends the line
		return nil, fmt.Errorf("cdxj: capture %s: %w", c.ID, err)
	}
	return buf.Bytes(), nil
}

// sortLines sorts index lines bytewise (as LC_ALL=C sort does) and drops repeated ones.
func sortLines(lines [][]byte) [][]byte {
	slices.SortFunc(lines, bytes.Compare)
	return slices.CompactFunc(lines, bytes.Equal)
}

// WriteCDX writes the standard CDXJ index of the selection's captures to w, for OutbackCDX and
// pywb over the public shards: one line per capture (its response or revisit record), sorted,
// keys of the specification only, filename the shard's name, digest the payload's SHA-1 in
// base32 (a revisit's is its original's). It reads every response record, checks its payload
// against its WARC-Payload-Digest and its record id against the index, and returns how many
// lines it wrote.
func WriteCDX(ctx context.Context, w io.Writer, fsys fs.FS, sel *Selection) (int, error) {
	fl := newFiles(fsys)
	defer fl.close()
	sha1s := map[string]string{} // capture id → payload SHA-1 of the response record
	for _, revisits := range []bool{false, true} {
		for i := range sel.Kept {
			c := &sel.Kept[i]
			if c.Revisit != revisits {
				continue
			}
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			rec, err := fl.readRecord(c.Response, false)
			if err != nil {
				return 0, err
			}
			if err := checkRecord(c, rec); err != nil {
				return 0, err
			}
			if !c.Revisit {
				sha1s[c.ID] = rec.SHA1
			}
		}
	}
	lines := make([][]byte, 0, len(sel.Kept))
	for i := range sel.Kept {
		c := &sel.Kept[i]
		digest := sha1s[c.ID]
		if c.Revisit {
			if digest = sha1s[c.RefersTo]; digest == "" {
				return 0, fmt.Errorf("revisit %s: its original %s is not exported", c.ID, c.RefersTo)
			}
		}
		line, err := stdLine(c, digest, path.Base(c.Shard), c.Response.Offset)
		if err != nil {
			return 0, err
		}
		lines = append(lines, line)
	}
	lines = sortLines(lines)
	for _, l := range lines {
		if _, err := w.Write(l); err != nil {
			return 0, fmt.Errorf("write index: %w", err)
		}
	}
	return len(lines), nil
}

// checkRecord checks that the record read at a capture's response location is that capture's.
func checkRecord(c *Capture, rec record) error {
	want := "response"
	if c.Revisit {
		want = "revisit"
	}
	if rec.Type != want || rec.ID != c.ID {
		return fmt.Errorf("public/%s at %d: a %s record %s, but the index says capture %s is a %s there",
			c.Response.File, c.Response.Offset, rec.Type, rec.ID, c.ID, want)
	}
	return nil
}
