package public

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// CDXJ is the JSON block of one line of a public CDXJ index (webrecorder CDXJ):
// "SURT 14-digit-timestamp {json}". Released captures and tombstones share this shape.
type CDXJ struct {
	URL           string      `json:"url"`
	Mime          string      `json:"mime,omitempty"`
	Status        int         `json:"status,omitempty"`
	Digest        string      `json:"digest"`                   // payload digest, "sha256:<hex>"
	Length        int64       `json:"length"`                   // the record's gzip member length
	Offset        int64       `json:"offset"`                   // the record's gzip member offset
	Filename      string      `json:"filename"`                 // the file's name, "PUBLIC-….warc.gz" (earlier: "shards/PUBLIC-…"); see PathOf
	Usage         []string    `json:"usage,omitempty"`          // combined Content-Usage preferences
	UsageRobots   []string    `json:"usage_robots,omitempty"`   // the robots.txt Content-Usage expressions that applied, raw
	UsageHeader   []string    `json:"usage_header,omitempty"`   // the Content-Usage header field lines, raw
	ReleaseAt     string      `json:"release_at"`               // RFC 3339, UTC
	EmbargoSource string      `json:"embargo_source,omitempty"` // what set the embargo: "robots.txt" or "header" (when recorded)
	ID            string      `json:"id"`                       // the capture id (WARC-Record-ID of the sealed response)
	State         string      `json:"state"`                    // "released" (a shard's line) or "tombstone" (earlier: "embargoed")
	Time          string      `json:"time"`                     // capture time, RFC 3339 UTC (the 14-digit key drops nothing but the zone)
	Headers       [][2]string `json:"headers,omitempty"`        // tombstones: the response header fields
	Revisit       bool        `json:"revisit,omitempty"`        // a revisit record (identical payload)
	RefersTo      string      `json:"refers_to,omitempty"`
}

// The values of CDXJ.State. A line states what it is, never what may change: a shard's line is
// a released capture, forever; a tombstone's line says that a tombstone was published for a
// capture under embargo until release_at, and stays true once the capture is released (the
// capture's state is whether a released line exists, whatever the reader's clock says).
// Tombstone lines of earlier versions say StateEmbargoed; readers take it as StateTombstone. The
// lookup also names a capture not yet released StateEmbargoed.
const (
	StateReleased  = "released"
	StateTombstone = "tombstone"
	StateEmbargoed = "embargoed"
)

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
	b := make([]byte, 0, len(surt)+17+300+len(c.URL)+len(c.Filename))
	b = append(b, surt...)
	b = append(b, ' ')
	b = t.UTC().AppendFormat(b, Timestamp14)
	b = append(b, ' ')
	if fastCDXJ {
		b = appendCDXJ(b, &c) // what json.Marshal(c) writes
	} else {
		js, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("cdxj: %w", err)
		}
		b = append(b, js...)
	}
	return append(b, '\n'), nil
}

// ParseLine reads one CDXJ line (with or without its newline) with Parse and returns it as strings.
func ParseLine(line []byte) (Line, error) {
	r, err := Parse(line)
	if err != nil {
		return Line{}, fmt.Errorf("cdxj: %w", err)
	}
	l, err := r.Line()
	if err != nil {
		return Line{}, fmt.Errorf("cdxj: %w", err)
	}
	return l, nil
}

// Line returns the parsed line with its fields as strings and lists.
func (r *Raw) Line() (Line, error) {
	f := &r.Block
	id, err := f.AppendID(nil)
	if err != nil {
		return Line{}, err
	}
	l := Line{SURT: string(r.Key), Timestamp: string(r.Timestamp), CDXJ: CDXJ{
		URL: string(f.URL), Mime: string(f.Mime), Status: int(f.Status), Digest: string(f.Digest),
		Length: f.Length, Offset: f.Offset, Filename: string(f.Filename), ReleaseAt: string(f.ReleaseAt), EmbargoSource: string(f.EmbargoSource),
		ID: string(id), State: string(f.State), Time: string(f.Time), Revisit: f.Revisit, RefersTo: string(f.RefersTo),
	}}
	for _, u := range []struct {
		name string
		raw  []byte
		dst  *[]string
	}{{"usage", f.Usage, &l.Usage}, {"usage_robots", f.UsageRobots, &l.UsageRobots}, {"usage_header", f.UsageHeader, &l.UsageHeader}} {
		if u.raw != nil {
			if err := json.Unmarshal(u.raw, u.dst); err != nil {
				return Line{}, fmt.Errorf("%s: %w", u.name, err)
			}
		}
	}
	if f.Headers != nil {
		if err := json.Unmarshal(f.Headers, &l.Headers); err != nil {
			return Line{}, fmt.Errorf("headers: %w", err)
		}
	}
	return l, nil
}
