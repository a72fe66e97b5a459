package index

import (
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/surt"
	bolt "go.etcd.io/bbolt"
)

// Index schema 2 stores an entry as one binary value under the key timeKey(ReleaseAt) ‖ idKey(ID)
// in the bucket of its state, so the key carries the release time and the id and the bucket the
// state. The value's layout is fixed; integers are unsigned varints (v) unless sized:
//
//	layout byte (entryLayout, or entryLayoutSource) · flags byte (flag*) · EmbargoSource (only
//	in entryLayoutSource: a source* byte, with sourceOther then s) · Status v · Period (zigzag varint) ·
//	Time (12-byte timeKey) · FirstSeen (timeKey; absent with flagFirstSeenIsTime) ·
//	sealed locations: with flagContiguous file v, response offset v, request, response and
//	metadata lengths v (request ends where response starts, metadata starts where it ends);
//	otherwise request, response, metadata each as file v, offset v, length v ·
//	public location file v, offset v, length v (only with flagPublic) ·
//	URL s · SURT s (absent with flagSURTOfURL) · Mime s (absent with flagMimeOfHeaders) ·
//	LastModified s (absent with flagLastModifiedOfHeaders) · PayloadDigest d ·
//	RefersTo id (only with flagRevisit) · Headers: count v, then per field name code v (0: a
//	literal name s follows; k: headerNames[k-1]) and value s · UsageHeader, UsageRobots, Usage:
//	count v, then s each
//
// where s is a length v and bytes, d a digest (digest*: tag byte, then 32 or 20 raw bytes, or
// a string s), id an idKey with its length v, and file v a number of the names bucket (0: none).
const entryLayout = 2

// entryLayoutSource is entryLayout with the EmbargoSource byte after the flags: the layout of an
// entry whose source is known. An entry of entryLayout (written before, or with no source
// recorded) reads with EmbargoSource "".
const entryLayoutSource = 3

// EmbargoSource codes.
const (
	sourceOther  = 0 // any other value: a string s follows
	sourceRobots = 1 // "robots.txt"
	sourceHeader = 2 // "header"
)

// embargoSources are the values with a one-byte code, by code.
var embargoSources = [...]string{sourceRobots: "robots.txt", sourceHeader: "header"}

// The flags of an encoded entry.
const (
	flagRobots = 1 << iota
	flagRevisit
	flagSURTOfURL             // SURT is SURT(URL), not stored
	flagContiguous            // request, response and metadata are adjacent members of one file
	flagPublic                // a public location is stored
	flagFirstSeenIsTime       // FirstSeen equals Time, not stored
	flagMimeOfHeaders         // Mime is mimeOf(Headers), not stored
	flagLastModifiedOfHeaders // LastModified is lastModifiedOf(Headers), not stored
)

// mimeOf is the media type of the first Content-Type field, lowercased, without parameters.
func mimeOf(headers [][2]string) string {
	for _, h := range headers {
		if strings.EqualFold(h[0], "Content-Type") {
			t, _, _ := strings.Cut(h[1], ";")
			return strings.ToLower(strings.TrimSpace(t))
		}
	}
	return ""
}

// lastModifiedOf is the values of every Last-Modified field, joined by ", ".
func lastModifiedOf(headers [][2]string) string {
	var vs []string
	for _, h := range headers {
		if strings.EqualFold(h[0], "Last-Modified") {
			vs = append(vs, h[1])
		}
	}
	return strings.Join(vs, ", ")
}

// Digest tags.
const (
	digestRaw    = 0 // any other form: a string follows
	digestSHA256 = 1 // "sha256:" + 64 lowercase hex digits: 32 bytes follow
	digestSHA1   = 2 // "sha1:" + 32 base32 digits: 20 bytes follow
)

// headerNames are the response header field names stored as a one-byte code (their index + 1).
// The list is part of the layout: append only, never reorder.
var headerNames = []string{
	"Content-Type", "Content-Length", "Date", "Server", "Last-Modified", "ETag", "Cache-Control",
	"Expires", "Connection", "Accept-Ranges", "Vary", "Content-Encoding", "Transfer-Encoding",
	"Set-Cookie", "Location", "Age", "X-Frame-Options", "Strict-Transport-Security",
	"X-Content-Type-Options", "Content-Security-Policy", "Access-Control-Allow-Origin",
	"Content-Language", "Link", "Pragma", "Keep-Alive", "Content-Usage", "X-Powered-By", "Via",
	"Alt-Svc", "Referrer-Policy", "Retry-After", "Content-Disposition", "Archive-Embargo",
}

var headerCode = func() map[string]uint64 {
	m := make(map[string]uint64, len(headerNames))
	for i, n := range headerNames {
		m[n] = uint64(i + 1)
	}
	return m
}()

// idKey is the key form of a capture id: 0x01 and the 16 bytes of a "<urn:uuid:…>" id in
// lowercase canonical form, else 0x00 and the id's bytes. Within each form, key order is id order.
func idKey(id string) []byte { return appendIDKey(make([]byte, 0, 17), id) }

const uuidRefForm = "<urn:uuid:xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx>"

func appendIDKey(dst []byte, id string) []byte {
	if len(id) == len(uuidRefForm) && id[:10] == uuidRefForm[:10] && id[len(id)-1] == '>' {
		u := id[10 : len(id)-1]
		var raw [16]byte
		if u[8] == '-' && u[13] == '-' && u[18] == '-' && u[23] == '-' && lowerHex(u) {
			h := u[:8] + u[9:13] + u[14:18] + u[19:23] + u[24:]
			if _, err := hex.Decode(raw[:], []byte(h)); err == nil {
				return append(append(dst, 1), raw[:]...)
			}
		}
	}
	return append(append(dst, 0), id...)
}

// lowerHex reports whether every character of s is a hyphen or a lowercase hex digit.
func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '-' && (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// keyID decodes an idKey.
func keyID(k []byte) (string, error) {
	switch {
	case len(k) == 17 && k[0] == 1:
		h := hex.EncodeToString(k[1:])
		return "<urn:uuid:" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:] + ">", nil
	case len(k) >= 1 && k[0] == 0:
		return string(k[1:]), nil
	}
	return "", fmt.Errorf("bad id key %x: %w", k, errCorrupt)
}

// entryKey is timeKey(release) ‖ idKey(id), the key of the state buckets.
func entryKey(release time.Time, id string) []byte {
	return appendIDKey(append(make([]byte, 0, 29), timeKey(release)...), id)
}

// codec encodes and decodes entries inside one transaction, interning WARC file names.
type codec struct {
	tx     *bolt.Tx
	byNum  map[uint64]string
	byName map[string]uint64
}

func newCodec(tx *bolt.Tx) *codec {
	return &codec{tx: tx, byNum: map[uint64]string{}, byName: map[string]uint64{}}
}

// The keys of the names bucket: nameKeyNum ‖ name → number, numKeyName ‖ number → name.
const (
	nameToNum = 'n'
	numToName = 'i'
)

// num is the number of a file name, assigned on first use (in a read-write transaction).
func (c *codec) num(name string) (uint64, error) {
	if name == "" {
		return 0, nil
	}
	if n, ok := c.byName[name]; ok {
		return n, nil
	}
	b := c.tx.Bucket(bucketNames)
	var n uint64
	if v := b.Get(append([]byte{nameToNum}, name...)); len(v) == 8 {
		n = binary.BigEndian.Uint64(v)
	} else {
		var err error
		if n, err = b.NextSequence(); err != nil {
			return 0, err
		}
		nb := binary.BigEndian.AppendUint64(nil, n)
		if err := b.Put(append([]byte{nameToNum}, name...), nb); err != nil {
			return 0, err
		}
		if err := b.Put(append([]byte{numToName}, nb...), []byte(name)); err != nil {
			return 0, err
		}
	}
	c.byName[name], c.byNum[n] = n, name
	return n, nil
}

// name is the file name of a number.
func (c *codec) name(n uint64) (string, error) {
	if n == 0 {
		return "", nil
	}
	if s, ok := c.byNum[n]; ok {
		return s, nil
	}
	v := c.tx.Bucket(bucketNames).Get(binary.BigEndian.AppendUint64([]byte{numToName}, n))
	if v == nil {
		return "", fmt.Errorf("file name number %d is not in the names bucket: %w", n, errCorrupt)
	}
	s := string(v)
	c.byNum[n], c.byName[s] = s, n
	return s, nil
}

// encode appends the value of e (its ID, ReleaseAt and State live in the key and the bucket).
func (c *codec) encode(dst []byte, e *Entry) ([]byte, error) {
	var flags byte
	if e.Robots {
		flags |= flagRobots
	}
	if e.Revisit {
		flags |= flagRevisit
	}
	if s, err := surt.Key(e.URL); err == nil && s == e.SURT {
		flags |= flagSURTOfURL
	}
	q, r, m := e.Request, e.Response, e.Metadata
	if q.File == r.File && m.File == r.File && r.File != "" && q.Offset+q.Length == r.Offset && r.Offset+r.Length == m.Offset {
		flags |= flagContiguous
	}
	if e.Public != (Location{}) {
		flags |= flagPublic
	}
	if e.FirstSeen.Equal(e.Time) {
		flags |= flagFirstSeenIsTime
	}
	if e.Mime == mimeOf(e.Headers) {
		flags |= flagMimeOfHeaders
	}
	if e.LastModified == lastModifiedOf(e.Headers) {
		flags |= flagLastModifiedOfHeaders
	}
	if e.EmbargoSource == "" {
		dst = append(dst, entryLayout, flags)
	} else {
		dst = appendSource(append(dst, entryLayoutSource, flags), e.EmbargoSource)
	}
	dst = binary.AppendUvarint(dst, uint64(e.Status))
	dst = binary.AppendVarint(dst, int64(e.Period))
	dst = append(dst, timeKey(e.Time)...)
	if flags&flagFirstSeenIsTime == 0 {
		dst = append(dst, timeKey(e.FirstSeen)...)
	}
	var err error
	loc := func(l Location, withFile bool) {
		if err != nil {
			return
		}
		if withFile {
			var n uint64
			if n, err = c.num(l.File); err != nil {
				return
			}
			dst = binary.AppendUvarint(dst, n)
		}
		dst = binary.AppendUvarint(dst, uint64(l.Offset))
		dst = binary.AppendUvarint(dst, uint64(l.Length))
	}
	if flags&flagContiguous != 0 {
		loc(Location{File: r.File, Offset: r.Offset, Length: q.Length}, true)
		dst = binary.AppendUvarint(dst, uint64(r.Length))
		dst = binary.AppendUvarint(dst, uint64(m.Length))
	} else {
		loc(q, true)
		loc(r, true)
		loc(m, true)
	}
	if flags&flagPublic != 0 {
		loc(e.Public, true)
	}
	if err != nil {
		return nil, err
	}
	dst = appendString(dst, e.URL)
	if flags&flagSURTOfURL == 0 {
		dst = appendString(dst, e.SURT)
	}
	if flags&flagMimeOfHeaders == 0 {
		dst = appendString(dst, e.Mime)
	}
	if flags&flagLastModifiedOfHeaders == 0 {
		dst = appendString(dst, e.LastModified)
	}
	dst = appendDigest(dst, e.PayloadDigest)
	if e.Revisit {
		k := idKey(e.RefersTo)
		dst = binary.AppendUvarint(dst, uint64(len(k)))
		dst = append(dst, k...)
	}
	dst = binary.AppendUvarint(dst, uint64(len(e.Headers)))
	for _, h := range e.Headers {
		code := headerCode[h[0]]
		dst = binary.AppendUvarint(dst, code)
		if code == 0 {
			dst = appendString(dst, h[0])
		}
		dst = appendString(dst, h[1])
	}
	for _, l := range [][]string{e.UsageHeader, e.UsageRobots, e.Usage} {
		dst = binary.AppendUvarint(dst, uint64(len(l)))
		for _, s := range l {
			dst = appendString(dst, s)
		}
	}
	return dst, nil
}

// appendSource appends the code of a known EmbargoSource.
func appendSource(dst []byte, source string) []byte {
	switch source {
	case embargoSources[sourceRobots]:
		return append(dst, sourceRobots)
	case embargoSources[sourceHeader]:
		return append(dst, sourceHeader)
	}
	return appendString(append(dst, sourceOther), source)
}

func appendString(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

func appendDigest(dst []byte, d string) []byte {
	if len(d) == 7+64 && d[:7] == "sha256:" && lowerHex(d[7:]) {
		if raw, err := hex.DecodeString(d[7:]); err == nil {
			return append(append(dst, digestSHA256), raw...)
		}
	}
	if len(d) == 5+32 && d[:5] == "sha1:" {
		if raw, err := base32.StdEncoding.DecodeString(d[5:]); err == nil && len(raw) == 20 && base32.StdEncoding.EncodeToString(raw) == d[5:] {
			return append(append(dst, digestSHA1), raw...)
		}
	}
	return appendString(append(dst, digestRaw), d)
}

// errCorrupt is a value that does not decode.
var errCorrupt = errors.New("corrupt index entry")

// reader reads the fields of an encoded entry; the first failure sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errCorrupt
	}
	r.b = nil
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n uint64) []byte {
	if uint64(len(r.b)) < n {
		r.fail()
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) str() string { return string(r.bytes(r.uvarint())) }

func (r *reader) time() time.Time {
	if b := r.bytes(12); b != nil {
		return keyTime(b)
	}
	return time.Time{}
}

func (r *reader) strs() []string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	var out []string
	for range n {
		out = append(out, r.str())
	}
	return out
}

func (r *reader) digest() string {
	switch tag := r.bytes(1); {
	case tag == nil:
		return ""
	case tag[0] == digestSHA256:
		return "sha256:" + hex.EncodeToString(r.bytes(32))
	case tag[0] == digestSHA1:
		return "sha1:" + base32.StdEncoding.EncodeToString(r.bytes(20))
	case tag[0] == digestRaw:
		return r.str()
	}
	r.fail()
	return ""
}

// source reads a known EmbargoSource: its code, or sourceOther and a string.
func (r *reader) source() string {
	b := r.bytes(1)
	switch {
	case b == nil:
		return ""
	case b[0] == sourceRobots || b[0] == sourceHeader:
		return embargoSources[b[0]]
	case b[0] == sourceOther:
		if s := r.str(); s != "" {
			return s
		}
	}
	r.fail() // an unknown code, or an empty string, which encode never writes
	return ""
}

// decode rebuilds the entry stored under key k in the bucket of state.
func (c *codec) decode(state CaptureState, k, v []byte) (Entry, error) {
	e := Entry{State: state}
	if len(k) < 13 {
		return e, fmt.Errorf("index key %x: %w", k, errCorrupt)
	}
	e.ReleaseAt = keyTime(k)
	id, err := keyID(k[12:])
	if err != nil {
		return e, err
	}
	e.ID = id
	if len(v) < 2 || (v[0] != entryLayout && v[0] != entryLayoutSource) {
		return e, fmt.Errorf("index entry %s: %w (layout %x)", id, errCorrupt, v[:min(len(v), 1)])
	}
	flags := v[1]
	r := &reader{b: v[2:]}
	if v[0] == entryLayoutSource {
		e.EmbargoSource = r.source()
	}
	e.Robots, e.Revisit = flags&flagRobots != 0, flags&flagRevisit != 0
	e.Status = int(r.uvarint())
	e.Period = embargo.Period(r.varint())
	e.Time = r.time()
	e.FirstSeen = e.Time
	if flags&flagFirstSeenIsTime == 0 {
		e.FirstSeen = r.time()
	}
	loc := func() Location {
		n := r.uvarint()
		l := Location{Offset: int64(r.uvarint()), Length: int64(r.uvarint())}
		if r.err == nil {
			l.File, r.err = c.name(n)
		}
		return l
	}
	if flags&flagContiguous != 0 {
		first := loc() // the response's file and offset, the request's length
		reqLen, respLen, metaLen := first.Length, int64(r.uvarint()), int64(r.uvarint())
		e.Request = Location{File: first.File, Offset: first.Offset - reqLen, Length: reqLen}
		e.Response = Location{File: first.File, Offset: first.Offset, Length: respLen}
		e.Metadata = Location{File: first.File, Offset: first.Offset + respLen, Length: metaLen}
	} else {
		e.Request, e.Response, e.Metadata = loc(), loc(), loc()
	}
	if flags&flagPublic != 0 {
		e.Public = loc()
	}
	e.URL = r.str()
	if flags&flagSURTOfURL != 0 {
		if e.SURT, err = surt.Key(e.URL); err != nil && r.err == nil {
			r.err = err
		}
	} else {
		e.SURT = r.str()
	}
	if flags&flagMimeOfHeaders == 0 {
		e.Mime = r.str()
	}
	if flags&flagLastModifiedOfHeaders == 0 {
		e.LastModified = r.str()
	}
	e.PayloadDigest = r.digest()
	if e.Revisit {
		if e.RefersTo, err = keyID(r.bytes(r.uvarint())); err != nil && r.err == nil {
			r.err = err
		}
	}
	if n := r.uvarint(); n > 0 && n <= uint64(len(r.b)) {
		e.Headers = make([][2]string, n)
		for i := range e.Headers {
			switch code := r.uvarint(); {
			case code == 0:
				e.Headers[i][0] = r.str()
			case code <= uint64(len(headerNames)):
				e.Headers[i][0] = headerNames[code-1]
			default:
				r.fail()
			}
			e.Headers[i][1] = r.str()
		}
	} else if n > 0 {
		r.fail()
	}
	e.UsageHeader, e.UsageRobots, e.Usage = r.strs(), r.strs(), r.strs()
	if flags&flagMimeOfHeaders != 0 {
		e.Mime = mimeOf(e.Headers)
	}
	if flags&flagLastModifiedOfHeaders != 0 {
		e.LastModified = lastModifiedOf(e.Headers)
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if r.err != nil {
		return e, fmt.Errorf("index entry %s: %w", id, r.err)
	}
	return e, nil
}
