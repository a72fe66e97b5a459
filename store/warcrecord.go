package store

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/warcrecord"
	"github.com/nlnwa/gowarc/v3"
	"github.com/nlnwa/whatwg-url/url"
)

// record is a WARC/1.1 record as Seal writes it: header fields in order, then the block. Seal
// builds its records itself, not through gowarc's builder and marshaler: the bytes are those gowarc
// writes for the same record (records_gowarc_test.go compares them over a corpus), without gowarc's
// copies of the block, per-record option set-up and repeated validation of the same values.
type record struct {
	fields []field
	block  []byte
}

// newRecord starts a record with the fields gowarc's builder puts first (WARC-Type, WARC-Record-ID,
// WARC-Date, Content-Type), then fields in order, empty values left out.
func newRecord(t gowarc.RecordType, id string, date time.Time, ctype string, fields ...field) (*record, error) {
	r := &record{fields: make([]field, 0, 8+len(fields))}
	r.fields = append(r.fields, field{gowarc.WarcType, t.String()}, field{gowarc.WarcRecordID, id},
		field{gowarc.WarcDate, date.UTC().Format(time.RFC3339Nano)}, field{gowarc.ContentType, ctype})
	for _, f := range fields {
		if f.value != "" {
			r.fields = append(r.fields, f)
		}
	}
	for _, f := range r.fields {
		if strings.ContainsAny(f.value, "\r\n") {
			return nil, fmt.Errorf("build %s record: WARC field %s holds a line break: %q", t, f.name, f.value)
		}
	}
	return r, nil
}

// httpRecord builds a request or response record of an HTTP message: Content-Length, then the
// digests of the block and of the payload after the head as gowarc delimits it (httpHeadLen).
// It also returns the head's length. A block gowarc's strict builder refuses (under 4 bytes, or a
// head without its empty line) is refused with gowarc's error.
func httpRecord(alg string, t gowarc.RecordType, id string, date time.Time, ctype string, block []byte, fields ...field) (*record, int, error) {
	if len(block) < 4 {
		return nil, 0, fmt.Errorf("build %s record: not a http block: %w", t, io.EOF)
	}
	n := httpHeadLen(block)
	if n < 0 {
		return nil, 0, fmt.Errorf("build %s record: missing line separator at end of http headers", t)
	}
	r, err := newRecord(t, id, date, ctype, fields...)
	if err != nil {
		return nil, 0, err
	}
	bd, pd := blockPayloadDigests(alg, block, n)
	r.fields = append(r.fields, field{gowarc.ContentLength, strconv.Itoa(len(block))},
		field{gowarc.WarcBlockDigest, bd}, field{gowarc.WarcPayloadDigest, pd})
	r.block = block
	return r, n, nil
}

// fieldsRecord builds a record whose block has no payload (metadata, warcinfo): Content-Length
// and the block digest after it, as gowarc's builder orders them, and no WARC-Payload-Digest
// (WARC 1.1 §5.9: not on a record without a well-defined payload).
func fieldsRecord(alg string, t gowarc.RecordType, id string, date time.Time, ctype string, block []byte, fields ...field) (*record, error) {
	r, err := newRecord(t, id, date, ctype, fields...)
	if err != nil {
		return nil, err
	}
	r.fields = append(r.fields, field{gowarc.ContentLength, strconv.Itoa(len(block))}, field{gowarc.WarcBlockDigest, Digest(alg, block)})
	r.block = block
	return r, nil
}

// revisit is an identical-payload-digest revisit of orig made from resp, a response record whose
// HTTP head is headLen bytes long, as gowarc's ToRevisitRecord makes it: the record keeps resp's
// id, date and fields; its block is the head alone.
func (resp *record) revisit(alg string, headLen int, orig Entry) *record {
	r := &record{fields: append(make([]field, 0, len(resp.fields)+5), resp.fields...), block: resp.block[:headLen]}
	r.set(gowarc.WarcType, gowarc.Revisit.String())
	r.set(gowarc.WarcProfile, gowarc.ProfileIdenticalPayloadDigestV1_1)
	if orig.ID != "" {
		r.set(gowarc.WarcRefersTo, idField(orig.ID))
	}
	if orig.URL != "" {
		r.set(gowarc.WarcRefersToTargetURI, orig.URL)
	}
	r.set(gowarc.WarcRefersToDate, orig.Time.UTC().Format(time.RFC3339Nano))
	r.set(gowarc.WarcTruncated, "length")
	r.set(gowarc.WarcBlockDigest, Digest(alg, r.block))
	r.set(gowarc.ContentLength, strconv.Itoa(headLen))
	return r
}

// idField is an id as gowarc's SetId writes it: wrapped in <> unless it starts with < or ends with >.
func idField(id string) string {
	if id[0] != '<' && id[len(id)-1] != '>' {
		return "<" + id + ">"
	}
	return id
}

// set replaces the value of the field name, or appends the field.
func (r *record) set(name, value string) {
	for i := range r.fields {
		if r.fields[i].name == name {
			r.fields[i].value = value
			return
		}
	}
	r.fields = append(r.fields, field{name, value})
}

// get is the value of the field name, or "".
func (r *record) get(name string) string {
	for _, f := range r.fields {
		if f.name == name {
			return f.value
		}
	}
	return ""
}

// appendHeader appends the version line, the header fields and the empty line that ends them.
func (r *record) appendHeader(b []byte) []byte {
	b = append(b, "WARC/1.1\r\n"...)
	for _, f := range r.fields {
		b = append(b, f.name...)
		b = append(b, ": "...)
		b = append(b, f.value...)
		b = append(b, "\r\n"...)
	}
	return append(b, "\r\n"...)
}

// checkTargetURI refuses a URL that gowarc's strict builder refuses as WARC-Target-URI, with its
// error; an empty one is left out of the records, so it passes.
func checkTargetURI(u string) error {
	if u == "" {
		return nil
	}
	if _, err := url.NewParser().Parse(u); err != nil {
		return &gowarc.HeaderFieldError{FieldName: gowarc.WarcTargetURI, Msg: err.Error()}
	}
	return nil
}

// checkDate refuses a time that gowarc's strict builder refuses as WARC-Date (a year beyond 9999).
func checkDate(t time.Time) error {
	if _, err := time.Parse(time.RFC3339, t.UTC().Format(time.RFC3339Nano)); err != nil {
		return &gowarc.HeaderFieldError{FieldName: gowarc.WarcDate, Msg: err.Error()}
	}
	return nil
}

// digestChunk is how much of the payload one step of blockPayloadDigests hashes twice while it
// stays in the CPU's cache.
const digestChunk = 16 << 10

// blockPayloadDigests is Digest(alg, block) and Digest(alg, block[headLen:]) in one pass over block.
func blockPayloadDigests(alg string, block []byte, headLen int) (blockDigest, payloadDigest string) {
	bh, ph := newHash(alg), newHash(alg)
	bh.Write(block[:headLen])
	for p := block[headLen:]; len(p) > 0; {
		n := min(len(p), digestChunk)
		bh.Write(p[:n])
		ph.Write(p[:n])
		p = p[n:]
	}
	return formatDigest(alg, bh), formatDigest(alg, ph)
}

// formatDigest is h's sum as a WARC digest of alg: "sha256:<lowercase hex>" or "sha1:<base32>".
func formatDigest(alg string, h hash.Hash) string {
	if alg != "sha1" {
		alg = "sha256"
	}
	var buf [sha256.Size]byte
	return warcrecord.Format(alg, h.Sum(buf[:0]))
}
