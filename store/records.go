package store

import (
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"hash"
	"net"
	"sync"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// gowarcMu serialises gowarc's option constructors: each one writes a package global of
// google/uuid (uuid.EnableRandPool) that uuid.New reads, which -race reports (DEPENDENCIES §1.6).
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
	gowarcMu.Lock()
	b := gowarc.NewRecordBuilder(t, recordOptions(digest)...)
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
		b.AddWarcHeader(gowarc.WarcPayloadDigest, digestOf(digest, block))
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

// digestOf is a WARC digest of b: "sha256:<lowercase hex>" or "sha1:<base32>", as gowarc writes them.
func digestOf(alg string, b []byte) string {
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
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	h := hex.EncodeToString(u[:])
	return "<urn:uuid:" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:] + ">", nil
}

// idRef is a record id as WARC header fields carry it: "<urn:uuid:…>".
func idRef(id string) string {
	if id == "" || id[0] == '<' {
		return id
	}
	return "<" + id + ">"
}
