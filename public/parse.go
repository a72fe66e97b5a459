package public

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Fields is the JSON block of a public CDXJ line (CDXJ) taken apart without reflection: string
// fields are views into the line (decoded copies when the JSON string is escaped), the
// Content-Usage list and a tombstone's header fields stay raw JSON.
type Fields struct {
	URL, Mime, Digest, Filename, ReleaseAt, ID, State, Time, RefersTo []byte // Mime: the capture's media type (see foldMime)
	PayloadMime                                                       []byte // the line's payload_mime, folded into Mime; nil when absent
	EmbargoSource                                                     []byte // nil when absent
	Usage                                                             []byte // raw JSON array of strings; nil when absent
	UsageRobots, UsageHeader                                          []byte // raw JSON arrays of strings (the raw expressions); nil when absent
	Headers                                                           []byte // raw JSON [[name, value], …], compact; nil when absent
	Status, Length, Offset                                            int64
	Revisit                                                           bool
	HeadersTruncated                                                  bool // Headers holds only the first fields (CDXJ.HeadersTruncated)
	IDEscaped                                                         bool // ID is the raw JSON string content, still escaped (see AppendID)
}

// Raw is one CDXJ line taken apart by Parse: its SURT key, its 14-digit timestamp and its JSON
// block, all views into the line, and the block's two times.
type Raw struct {
	Key, Timestamp  []byte
	Block           Fields
	Time, ReleaseAt int64 // Unix nanoseconds
}

// Parse reads one line of a public CDXJ index, "SURT 14-digit-timestamp {json}", with or without
// its newline. The key ends at the first space. The JSON block the releaser writes (json.Marshal
// output) takes a fast path that does not allocate; anything else goes through encoding/json, with
// the same result. A line whose state is unknown, whose times are not RFC 3339, which has no url,
// or whose status, offset or length is out of range is an error.
func Parse(b []byte) (Raw, error) {
	var r Raw
	b = bytes.TrimSuffix(b, []byte("\n"))
	key, ts, js, ok := split(b)
	if !ok {
		return r, errors.New(`not "SURT TIMESTAMP {json}"`)
	}
	r.Key, r.Timestamp = key, ts
	if r.Block, ok = fastFields(js); !ok {
		var err error
		if r.Block, err = slowFields(js); err != nil {
			return r, err
		}
	}
	f := &r.Block
	f.foldMime()
	var err error
	if r.Time, err = parseTime(f.Time); err != nil {
		return r, fmt.Errorf("time: %w", err)
	}
	if r.ReleaseAt, err = parseTime(f.ReleaseAt); err != nil {
		return r, fmt.Errorf("release_at: %w", err)
	}
	switch st := f.State; {
	case string(st) != StateReleased && string(st) != StateTombstone && string(st) != StateEmbargoed:
		return r, fmt.Errorf("state %q is not %q, %q nor %q", st, StateReleased, StateTombstone, StateEmbargoed)
	case len(f.URL) == 0:
		return r, errors.New("no url")
	case f.Status < 0 || f.Status > 999:
		return r, fmt.Errorf("status %d out of range", f.Status)
	case f.Offset < 0 || f.Length < 0:
		return r, errors.New("negative offset or length")
	}
	return r, nil
}

// split cuts a line at its first space, into the key, the 14-digit timestamp after it and the
// JSON block after the next space; ok is false when the line is not of that shape.
func split(b []byte) (key, ts, js []byte, ok bool) {
	i := bytes.IndexByte(b, ' ')
	if i <= 0 || len(b) <= i+16 || b[i+15] != ' ' || b[i+16] != '{' {
		return nil, nil, nil, false
	}
	for _, c := range b[i+1 : i+15] {
		if c < '0' || c > '9' {
			return nil, nil, nil, false
		}
	}
	return b[:i], b[i+1 : i+15], b[i+16:], true
}

// foldMime makes Mime the capture's media type from the drop-in form of the line (WireMime): a
// revisit's line says RevisitMime and its payload_mime the type; UnknownMime is no type. Lines of
// earlier versions carry the type itself, a revisit's too, and no mime when there was none.
func (f *Fields) foldMime() {
	if f.Revisit && string(f.Mime) == RevisitMime {
		f.Mime = f.PayloadMime
	}
	if string(f.Mime) == UnknownMime {
		f.Mime = nil
	}
	if len(f.Mime) == 0 {
		f.Mime = nil
	}
}

// nilIfEmpty is []byte(s), nil for "".
func nilIfEmpty(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

// AppendID appends the capture id, decoded, to dst.
func (f *Fields) AppendID(dst []byte) ([]byte, error) {
	if !f.IDEscaped {
		return append(dst, f.ID...), nil
	}
	if id, ok := unescape(dst, f.ID); ok {
		return id, nil
	}
	var s string
	if err := json.Unmarshal(append(append([]byte{'"'}, f.ID...), '"'), &s); err != nil {
		return dst, fmt.Errorf("id: %w", err)
	}
	return append(dst, s...), nil
}

// block is the JSON block decoded by encoding/json: the slow path, for blocks fastFields declines.
type block struct {
	URL           string          `json:"url"`
	Mime          string          `json:"mime"`
	Status        int64           `json:"status"`
	Digest        string          `json:"digest"`
	Length        int64           `json:"length"`
	Offset        int64           `json:"offset"`
	Filename      string          `json:"filename"`
	Usage         []string        `json:"usage"`
	UsageRobots   []string        `json:"usage_robots"`
	UsageHeader   []string        `json:"usage_header"`
	ReleaseAt     string          `json:"release_at"`
	EmbargoSource string          `json:"embargo_source"`
	ID            string          `json:"id"`
	State         string          `json:"state"`
	Time          string          `json:"time"`
	Headers       json.RawMessage `json:"headers"`
	Revisit       bool            `json:"revisit"`
	RefersTo      string          `json:"refers_to"`
	PayloadMime   string          `json:"payload_mime"`
	Truncated     bool            `json:"headers_truncated"`
}

// slowFields decodes a JSON block with encoding/json. Header fields other than a list of
// [name, value] string pairs (or null) make the block malformed.
func slowFields(js []byte) (Fields, error) {
	var l block
	if err := json.Unmarshal(js, &l); err != nil {
		return Fields{}, fmt.Errorf("json block: %w", err)
	}
	f := Fields{
		URL: []byte(l.URL), Mime: []byte(l.Mime), Digest: []byte(l.Digest), Filename: []byte(l.Filename),
		ReleaseAt: []byte(l.ReleaseAt), ID: []byte(l.ID), State: []byte(l.State), Time: []byte(l.Time),
		RefersTo: []byte(l.RefersTo), PayloadMime: nilIfEmpty(l.PayloadMime), EmbargoSource: []byte(l.EmbargoSource), Status: l.Status, Length: l.Length, Offset: l.Offset, Revisit: l.Revisit,
		HeadersTruncated: l.Truncated,
	}
	if l.Usage != nil {
		f.Usage, _ = json.Marshal(l.Usage)
	}
	if l.UsageRobots != nil {
		f.UsageRobots, _ = json.Marshal(l.UsageRobots)
	}
	if l.UsageHeader != nil {
		f.UsageHeader, _ = json.Marshal(l.UsageHeader)
	}
	if len(l.Headers) > 0 && !bytes.Equal(l.Headers, []byte("null")) {
		var pairs [][2]string
		if err := json.Unmarshal(l.Headers, &pairs); err != nil {
			return Fields{}, fmt.Errorf("json block: headers: %w", err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, l.Headers); err != nil {
			return Fields{}, fmt.Errorf("json block: headers: %w", err)
		}
		f.Headers = buf.Bytes()
	}
	return f, nil
}

// usageField is where the raw value of a Content-Usage list goes.
func (f *Fields) usageField(key string) *[]byte {
	switch key {
	case "usage_robots":
		return &f.UsageRobots
	case "usage_header":
		return &f.UsageHeader
	}
	return &f.Usage
}
