package public

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// CDXJ is the JSON block of one line of a public CDXJ index (webrecorder CDXJ):
// "SURT 14-digit-timestamp {json}". Released captures and tombstones share this shape.
type CDXJ struct {
	URL           string      `json:"url"`
	Mime          string      `json:"mime"` // on the line, the drop-in form (WireMime); in a CDXJ, the capture's media type
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
	Headers       [][2]string `json:"headers,omitempty"`        // the response header fields (cut to fit MaxLineBytes: HeadersTruncated)
	// HeadersTruncated says that Headers holds only the first of the response's header fields
	// (the last one kept perhaps cut short): the whole of them would have made the line longer
	// than MaxLineBytes. The sealed and public WARC records keep every field. Omitted when false.
	HeadersTruncated bool   `json:"headers_truncated,omitempty"`
	Revisit          bool   `json:"revisit,omitempty"` // a revisit record (identical payload)
	RefersTo         string `json:"refers_to,omitempty"`
	// PayloadMime is, on a revisit's line, the media type of its payload (the capture's Mime),
	// since the line's mime is RevisitMime. FormatLine sets it from Mime and ParseLine folds it
	// back into Mime: callers leave it empty.
	PayloadMime string `json:"payload_mime,omitempty"`
}

// The drop-in values of a line's mime, as pywb's indexer writes them: a revisit record's line says
// RevisitMime (pywb resolves a revisit only when its line does), a record without a media type
// UnknownMime (the CDXJ specification requires the key).
const (
	RevisitMime = "warc/revisit"
	UnknownMime = "unk"
)

// WireMime is the mime a line of a capture of media type mime says (revisit: a revisit record's).
func WireMime(mime string, revisit bool) string {
	switch {
	case revisit:
		return RevisitMime
	case mime == "":
		return UnknownMime
	}
	return mime
}

// wire is c as its line says it: the drop-in mime, and a revisit's media type in PayloadMime.
func (c CDXJ) wire() CDXJ {
	if c.Revisit {
		c.PayloadMime = c.Mime
	}
	c.Mime = WireMime(c.Mime, c.Revisit)
	return c
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

// MaxLineBytes is the longest public CDXJ line, its newline included: FormatLine never writes a
// longer one (it cuts the header fields, HeadersTruncated), and every reader of CDXJ lines
// (ReadCDXJ, verify, the public index's rebuild and so the lookup) reads lines up to it and
// takes a longer one as malformed. See docs/formats.md#cdxj-limit.
const MaxLineBytes = 1 << 20

// ErrLineTooLong is the error (errors.Is) of FormatLine for a line longer than MaxLineBytes even
// without its header fields.
var ErrLineTooLong = errors.New("cdxj: line too long")

// FormatLine renders one CDXJ line, newline included: "SURT TIMESTAMP {json}\n". A line that
// would be longer than MaxLineBytes keeps only as many header fields as fit (the last one kept
// perhaps cut short) and says so (HeadersTruncated); one still too long is ErrLineTooLong.
func FormatLine(surt string, t time.Time, c CDXJ) ([]byte, error) {
	b, err := formatLine(surt, t, c)
	if err != nil || len(b) <= MaxLineBytes {
		return b, err
	}
	bare := c
	bare.Headers, bare.HeadersTruncated = nil, true
	if b, err = formatLine(surt, t, bare); err != nil {
		return nil, err
	}
	// The headers go in as `,"headers":[…]` (before "headers_truncated"): what is left of the
	// limit once the line without them is written.
	room := MaxLineBytes - len(b) - len(`,"headers":[]`)
	if room <= 0 {
		return nil, fmt.Errorf("%w: %d bytes without its header fields, the limit is %d", ErrLineTooLong, len(b), MaxLineBytes)
	}
	bare.Headers = fitHeaders(c.Headers, room)
	if b, err = formatLine(surt, t, bare); err == nil && len(b) > MaxLineBytes { // not expected: fitHeaders counts as appendJSONString writes
		return nil, fmt.Errorf("%w: %d bytes with its header fields cut, the limit is %d", ErrLineTooLong, len(b), MaxLineBytes)
	}
	return b, err
}

// fitHeaders is the longest start of hs whose JSON form ([name,value] pairs joined by commas)
// takes at most room bytes, its last value perhaps cut at a character boundary.
func fitHeaders(hs [][2]string, room int) [][2]string {
	var out [][2]string
	used := 0
	for _, h := range hs {
		sep := 0
		if len(out) > 0 {
			sep = 1
		}
		name := jsonLen(h[0])
		fixed := sep + len(`[,]`) + name
		if v := jsonLen(h[1]); used+fixed+v <= room {
			out = append(out, h)
			used += fixed + v
			continue
		}
		if left := room - used - fixed - len(`""`); left > 0 { // the value, cut to fit
			if cut := cutJSON(h[1], left); cut != "" {
				out = append(out, [2]string{h[0], cut})
			}
		}
		break
	}
	return out
}

// jsonLen is len(appendJSONString(nil, s)).
func jsonLen(s string) int { return len(appendJSONString(nil, s)) }

// cutJSON is the longest start of s, cut at a character boundary, whose JSON string takes at most
// n bytes between its quotes.
func cutJSON(s string, n int) string {
	used, end := 0, 0
	for end < len(s) {
		w, size := 1, 1 // what appendJSONString writes for the character at end
		switch c := s[end]; {
		case c < 0x20 && c != '\b' && c != '\f' && c != '\n' && c != '\r' && c != '\t', c == '<', c == '>', c == '&':
			w = len(`\u0000`)
		case c < 0x20, c == '"', c == '\\':
			w = 2
		case c >= utf8.RuneSelf:
			var r rune
			r, size = utf8.DecodeRuneInString(s[end:])
			w = size
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				w = len(`\ufffd`)
			}
		}
		if used+w > n {
			break
		}
		used += w
		end += size
	}
	return s[:end]
}

func formatLine(surt string, t time.Time, c CDXJ) ([]byte, error) {
	c = c.wire()
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
		HeadersTruncated: f.HeadersTruncated,
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
