package store

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"net"
	"sync"
	"time"

	"github.com/archivectl/archivectl/internal/warcrecord"
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
	typeMetadata = gowarc.ApplicationWarcFields // the named fields of the facts (metadata.go)
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

// buildRecord builds one record with its WARC-Block-Digest, and a WARC-Payload-Digest where gowarc
// finds a payload (the HTTP body of a request or response). A warcinfo or metadata record has no
// payload, so it has no payload digest (WARC 1.1 §5.9); a revisit gets its original's (toRevisit).
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
	h := newHash(alg)
	h.Write(b)
	return formatDigest(alg, h)
}

// newHash is a fresh hash of alg, as warcrecord names them: SHA-1 for "sha1", SHA-256 otherwise
// (ValidDigest admits no other writing algorithm).
func newHash(alg string) hash.Hash {
	if alg != "sha1" {
		alg = "sha256"
	}
	_, h, _ := warcrecord.NewHash(alg + ":")
	return h
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
