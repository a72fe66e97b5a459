package lookup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// fields is the JSON block of a public CDXJ line (release.CDXJ) taken apart without reflection:
// string fields are views into the line (decoded copies when the JSON string is escaped), the
// Content-Usage list and a tombstone's header fields stay raw JSON.
type fields struct {
	url, mime, digest, filename, releaseAt, id, state, time []byte
	usage                                                   []byte // raw JSON array of strings; nil when absent
	headers                                                 []byte // raw JSON [[name, value], …], compact; nil when absent
	status, length, offset                                  int64
	revisit                                                 bool
	idEscaped                                               bool // id is the raw JSON string content, still escaped
}

// parsed is one CDXJ line: its SURT key, its 14-digit timestamp and its JSON block.
type parsed struct {
	key, timestamp  []byte
	f               fields
	time, releaseAt int64 // Unix nanoseconds
}

// parseLine reads one line of a public CDXJ index: "SURT 14-digit-timestamp {json}". The JSON
// block the releaser writes (json.Marshal output) takes a fast path; anything else goes through
// encoding/json. The SURT key may hold spaces or braces (a raw query): the timestamp splits it.
func parseLine(b []byte) (parsed, error) {
	var p parsed
	i := splitAt(b)
	if i < 0 {
		return p, errors.New(`not "SURT TIMESTAMP {json}"`)
	}
	p.key, p.timestamp = b[:i], b[i+1:i+15]
	js := b[i+16:]
	var ok bool
	if p.f, ok = fastFields(js); !ok {
		var err error
		if p.f, err = slowFields(js); err != nil {
			return p, err
		}
	}
	var err error
	if p.time, err = parseTime(p.f.time); err != nil {
		return p, fmt.Errorf("time: %w", err)
	}
	if p.releaseAt, err = parseTime(p.f.releaseAt); err != nil {
		return p, fmt.Errorf("release_at: %w", err)
	}
	switch st := string(p.f.state); {
	case st != stateReleased && st != stateEmbargoed:
		return p, fmt.Errorf("state %q is neither %q nor %q", st, stateReleased, stateEmbargoed)
	case len(p.f.url) == 0:
		return p, errors.New("no url")
	case p.f.status < 0 || p.f.status > 999:
		return p, fmt.Errorf("status %d out of range", p.f.status)
	case p.f.offset < 0 || p.f.length < 0:
		return p, errors.New("negative offset or length")
	}
	return p, nil
}

// splitAt returns the index of the space before the 14-digit timestamp that is followed by " {",
// or -1 when the line has no such field.
func splitAt(b []byte) int {
	for i := 1; i+16 < len(b); i++ {
		if b[i] != ' ' || b[i+15] != ' ' || b[i+16] != '{' {
			continue
		}
		digits := true
		for _, c := range b[i+1 : i+15] {
			if c < '0' || c > '9' {
				digits = false
				break
			}
		}
		if digits {
			return i
		}
	}
	return -1
}

// line is the JSON block decoded by encoding/json: the slow path, for blocks fastFields declines.
type line struct {
	URL       string          `json:"url"`
	Mime      string          `json:"mime"`
	Status    int64           `json:"status"`
	Digest    string          `json:"digest"`
	Length    int64           `json:"length"`
	Offset    int64           `json:"offset"`
	Filename  string          `json:"filename"`
	Usage     []string        `json:"usage"`
	ReleaseAt string          `json:"release_at"`
	ID        string          `json:"id"`
	State     string          `json:"state"`
	Time      string          `json:"time"`
	Headers   json.RawMessage `json:"headers"`
	Revisit   bool            `json:"revisit"`
}

// slowFields decodes a JSON block with encoding/json.
func slowFields(js []byte) (fields, error) {
	var l line
	if err := json.Unmarshal(js, &l); err != nil {
		return fields{}, fmt.Errorf("json block: %w", err)
	}
	f := fields{
		url: []byte(l.URL), mime: []byte(l.Mime), digest: []byte(l.Digest), filename: []byte(l.Filename),
		releaseAt: []byte(l.ReleaseAt), id: []byte(l.ID), state: []byte(l.State), time: []byte(l.Time),
		status: l.Status, length: l.Length, offset: l.Offset, revisit: l.Revisit,
	}
	if l.Usage != nil {
		f.usage, _ = json.Marshal(l.Usage)
	}
	if len(l.Headers) > 0 && l.Headers[0] == '[' { // not null, and the array the releaser writes
		var buf bytes.Buffer
		if json.Compact(&buf, l.Headers) == nil {
			f.headers = buf.Bytes()
		}
	}
	return f, nil
}
