package store

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"hash"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// gowarcMu serialises gowarc's option constructors: each one writes a package global of
// google/uuid (uuid.EnableRandPool) that uuid.New reads, which -race reports (docs/architecture.md#gowarc-uuid-race).
// Record ids come from newRecordID, so Build never reads that global and runs in parallel.
var gowarcMu sync.Mutex

// The WARC Content-Types of the sealed records.
const (
	typeRequest  = "application/http;msgtype=request"
	typeResponse = "application/http;msgtype=response"
	typeMetadata = "application/json" // the JSON document of facts (metadata.go)
	typeWarcinfo = gowarc.ApplicationWarcFields
)

// recordOptions are the builder options: digests added, every spec violation an error.
func recordOptions(digest string) []gowarc.WarcRecordOption {
	return []gowarc.WarcRecordOption{
		gowarc.WithAddMissingDigest(true),
		gowarc.WithDefaultDigestAlgorithm(digest),
		gowarc.WithSpecViolationPolicy(gowarc.ErrFail),
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail),
	}
}

// field is one WARC header field to add.
type field struct{ name, value string }

// buildRecord builds one record; for types whose payload gowarc does not define (warcinfo,
// metadata, revisit) it sets WARC-Payload-Digest itself: the digest of the block, or for a revisit
// the original's payload digest, so that every record carries both digests.
func buildRecord(digest string, t gowarc.RecordType, date time.Time, ctype string, block []byte, fields ...field) (gowarc.WarcRecord, error) {
	id, err := newRecordID()
	if err != nil {
		return nil, err
	}
	// gowarc buffers a block in memory up to this limit (beyond it, in a temporary file) and
	// starts with 16 KB; the block's own size keeps it in memory without allocating more.
	opts := append(recordOptions(digest), gowarc.WithBufferMaxMemBytes(max(int64(len(block)), 1)))
	gowarcMu.Lock()
	b := gowarc.NewRecordBuilder(t, opts...)
	gowarcMu.Unlock()
	b.AddWarcHeader(gowarc.WarcRecordID, id) // set here, so Build never calls google/uuid
	b.AddWarcHeaderTime(gowarc.WarcDate, date)
	b.AddWarcHeader(gowarc.ContentType, ctype)
	for _, f := range fields {
		if f.value != "" {
			b.AddWarcHeader(f.name, f.value)
		}
	}
	if t == gowarc.Warcinfo || t == gowarc.Metadata {
		b.AddWarcHeader(gowarc.WarcPayloadDigest, Digest(digest, block))
	}
	if _, err := b.Write(block); err != nil {
		b.Close()
		return nil, err
	}
	r, _, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build %s record: %w", t, err)
	}
	return r, nil
}

// buildResponse builds a response record whose WARC header is exactly what buildRecord would give
// for block, without handing the payload to gowarc: gowarc builds and validates the record from
// the HTTP head alone, and Content-Length and the two digests are then set from the whole block
// (the payload digest over the bytes after the head as gowarc delimits it). Copying the payload
// into gowarc's buffer, reading it back to digest it and again to marshal it was a third of Seal's
// CPU time. headOnly reports that the record holds only the head, so the caller must write block
// itself (encMember); for an odd head it falls back to buildRecord.
func buildResponse(digest string, date time.Time, block []byte, fields ...field) (r gowarc.WarcRecord, headOnly bool, err error) {
	n := httpHeadLen(block)
	if n < 4 || n >= len(block) {
		r, err = buildRecord(digest, gowarc.Response, date, typeResponse, block, fields...)
		return r, false, err
	}
	if r, err = buildRecord(digest, gowarc.Response, date, typeResponse, block[:n], fields...); err != nil {
		return nil, false, err
	}
	if hb, ok := r.Block().(gowarc.ProtocolHeaderBlock); !ok || len(hb.ProtocolHeaderBytes()) != n {
		r.Close()
		r, err = buildRecord(digest, gowarc.Response, date, typeResponse, block, fields...)
		return r, false, err
	}
	h := r.WarcHeader()
	h.Set(gowarc.ContentLength, strconv.Itoa(len(block)))
	h.Set(gowarc.WarcBlockDigest, Digest(digest, block))
	h.Set(gowarc.WarcPayloadDigest, Digest(digest, block[n:]))
	return r, true, nil
}

// httpHeadLen is the length of an HTTP message's head as gowarc delimits it: up to and including
// the first line (ending in LF) shorter than three bytes with its LF, or -1 when there is none.
func httpHeadLen(block []byte) int {
	for off := 0; off < len(block); {
		i := bytes.IndexByte(block[off:], '\n')
		if i < 0 {
			return -1
		}
		if i+1 < 3 {
			return off + i + 1
		}
		off += i + 1
	}
	return -1
}

// toRevisit turns a freshly built response record (whose id is fresh and discarded with it) into an
// identical-payload-digest revisit of the original capture.
func toRevisit(resp gowarc.WarcRecord, orig Entry) (gowarc.WarcRecord, error) {
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	r, err := resp.ToRevisitRecord(&gowarc.RevisitRef{
		Profile:        gowarc.ProfileIdenticalPayloadDigestV1_1,
		TargetRecordId: orig.ID,
		TargetUri:      orig.URL,
		TargetDate:     orig.Time.UTC().Format(time.RFC3339Nano),
	})
	if err != nil {
		return nil, fmt.Errorf("revisit of %s: %w", orig.ID, err)
	}
	return r, nil
}

// validIP is the IP address as WARC-IP-Address wants it, or "" when there is none.
func validIP(s string) string {
	if net.ParseIP(s) == nil {
		return ""
	}
	return s
}

// Digest is the WARC digest of b with alg ("sha256" unless "sha1"): "sha256:<lowercase hex>" or
// "sha1:<base32>", as gowarc writes them.
func Digest(alg string, b []byte) string {
	var h hash.Hash
	switch alg {
	case "sha1":
		h = sha1.New()
		h.Write(b)
		return "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil))
	default:
		h = sha256.New()
		h.Write(b)
		return "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
}

// newRecordID is a fresh WARC-Record-ID, "<urn:uuid:…>" with a random (version 4) UUID.
func newRecordID() (string, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return "", fmt.Errorf("record id: %w", err)
	}
	return uuidRef(u, 4), nil
}

// DerivedRecordID is a WARC-Record-ID that depends only on seed: "<urn:uuid:…>" with a version 8
// UUID made of the first 16 bytes of seed's SHA-256, so that a record written again from the same
// facts gets the same id.
func DerivedRecordID(seed string) string {
	h := sha256.Sum256([]byte(seed))
	return uuidRef([16]byte(h[:16]), 8)
}

// uuidRef is u as a WARC-Record-ID, "<urn:uuid:…>", with version set and the RFC 9562 variant.
func uuidRef(u [16]byte, version byte) string {
	u[6] = u[6]&0x0f | version<<4
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return "<urn:uuid:" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:] + ">"
}

// IDRef is a record id as WARC header fields carry it: "<urn:uuid:…>".
func IDRef(id string) string {
	if id == "" || id[0] == '<' {
		return id
	}
	return "<" + id + ">"
}
