package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// CDXJ is the JSON block of one line of a public CDXJ index (webrecorder CDXJ):
// "SURT 14-digit-timestamp {json}". Released captures and tombstones share this shape.
type CDXJ struct {
	URL       string      `json:"url"`
	Mime      string      `json:"mime,omitempty"`
	Status    int         `json:"status,omitempty"`
	Digest    string      `json:"digest"`            // payload digest, "sha256:<hex>"
	Length    int64       `json:"length"`            // the record's gzip member length
	Offset    int64       `json:"offset"`            // the record's gzip member offset
	Filename  string      `json:"filename"`          // relative to public/, e.g. "shards/…warc.gz"
	Usage     []string    `json:"usage,omitempty"`   // combined Content-Usage preferences
	ReleaseAt string      `json:"release_at"`        // RFC 3339, UTC
	ID        string      `json:"id"`                // the capture id (WARC-Record-ID of the sealed response)
	State     string      `json:"state"`             // "released" or "embargoed"
	Time      string      `json:"time"`              // capture time, RFC 3339 UTC (the 14-digit key drops nothing but the zone)
	Headers   [][2]string `json:"headers,omitempty"` // tombstones: the response header fields
	Revisit   bool        `json:"revisit,omitempty"` // a revisit record (identical payload)
	RefersTo  string      `json:"refers_to,omitempty"`
}

// The values of CDXJ.State.
const (
	StateReleased  = "released"
	StateEmbargoed = "embargoed"
)

// timestamp14 is the CDXJ key's timestamp layout.
const timestamp14 = "20060102150405"

// Line is one parsed CDXJ line: its sort key (SURT and 14-digit timestamp) and JSON block.
type Line struct {
	SURT      string
	Timestamp string
	CDXJ
}

// FormatLine renders one CDXJ line, newline included: "SURT TIMESTAMP {json}\n".
func FormatLine(surt string, t time.Time, c CDXJ) ([]byte, error) {
	if surt == "" || bytes.ContainsAny([]byte(surt), " \n") {
		return nil, fmt.Errorf("cdxj: bad SURT key %q", surt)
	}
	js, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("cdxj: %w", err)
	}
	b := make([]byte, 0, len(surt)+len(js)+17)
	b = append(b, surt...)
	b = append(b, ' ')
	b = t.UTC().AppendFormat(b, timestamp14)
	b = append(b, ' ')
	b = append(b, js...)
	return append(b, '\n'), nil
}

// ParseLine reads one CDXJ line (with or without its newline).
func ParseLine(line []byte) (Line, error) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	surt, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || len(surt) == 0 {
		return Line{}, errors.New("cdxj: no SURT key")
	}
	ts, js, ok := bytes.Cut(rest, []byte(" "))
	if !ok || len(ts) != len(timestamp14) {
		return Line{}, fmt.Errorf("cdxj: timestamp %q is not 14 digits", ts)
	}
	for _, c := range ts {
		if c < '0' || c > '9' {
			return Line{}, fmt.Errorf("cdxj: timestamp %q is not 14 digits", ts)
		}
	}
	var l Line
	if err := json.Unmarshal(js, &l.CDXJ); err != nil {
		return Line{}, fmt.Errorf("cdxj: %w", err)
	}
	if l.State != StateReleased && l.State != StateEmbargoed {
		return Line{}, fmt.Errorf("cdxj: unknown state %q", l.State)
	}
	l.SURT, l.Timestamp = string(surt), string(ts)
	return l, nil
}
