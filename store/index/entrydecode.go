package index

import (
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/surt"
)

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
