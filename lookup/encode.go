package lookup

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/archivectl/archivectl/aipref"
)

// The answer of /api/v1/captures (docs/formats.md#lookup-api, contract), encoded by hand: it is the hot path, and
// this writes the same JSON as encoding/json would for capturesJSON (TestEncodeMatchesJSON).
//
//	{"url": "...", "captures": [{"url", "timestamp", "status", "state", "release_at", "embargo_source"?,
//	  "payload_digest", "mime"?, "headers"?, "content_usage", "usage", "revisit"?, "warc"?}, ...],
//	 "match_type"?: "prefix", "next_cursor"?: "..."}
//
// content_usage lists the Content-Usage statements as the publisher wrote them: the robots.txt
// rule(s) that applied, then the header field lines. usage is their combined result per
// category of the vocabulary ("allow", "disallow" or "unknown"), the shape `archivectl robots`
// prints. embargo_source says what set the embargo ("robots.txt" or "header", the Archive-Embargo
// response field) when the archive recorded it. url, mime, embargo_source and revisit in a
// capture, usage, and match_type and next_cursor are additions to the contract.

// capturesJSON is the answer's shape, for tests and documentation.
type capturesJSON struct {
	URL        string        `json:"url"`
	MatchType  string        `json:"match_type,omitempty"`
	Captures   []captureJSON `json:"captures"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// captureJSON is one capture in an answer.
type captureJSON struct {
	URL           string            `json:"url"`
	Timestamp     string            `json:"timestamp"`
	Status        int               `json:"status"`
	State         string            `json:"state"`
	ReleaseAt     string            `json:"release_at"`
	Due           bool              `json:"due,omitempty"` // embargoed and its release time passed: the next pass publishes it
	EmbargoSource string            `json:"embargo_source,omitempty"`
	PayloadDigest string            `json:"payload_digest"`
	Mime          string            `json:"mime,omitempty"`
	Headers       json.RawMessage   `json:"headers,omitempty"`
	ContentUsage  []string          `json:"content_usage"`
	Usage         map[string]string `json:"usage"`
	Revisit       bool              `json:"revisit,omitempty"`
	WARC          *warcJSON         `json:"warc,omitempty"`
}

// warcJSON is where a released capture's record lies under public/.
type warcJSON struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
}

// jsonType is the Content-Type of JSON answers, shared (net/http only reads it).
var jsonType = []string{"application/json"}

// buffers keeps answer buffers of at most heldFree bytes for the next answer; a larger answer's
// buffer is its own, taken from the held-bytes budget (held.go), and dropped after it is written.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// writeCaptures answers 200 with the captures. An answer estimated above heldFree bytes is
// counted in share (the page's, or its own when nil) before it is built, and answers 503 with
// Retry-After when the held-bytes budget does not have room within Options.HeldWait; it is
// written under per-write deadlines. With keep.ix set, the answer is also kept in s.answers.
func (s *Server) writeCaptures(w http.ResponseWriter, r *http.Request, share *heldShare, url, matchType string, cs []capture, next string, keep answerKey) {
	start := time.Now()
	if share == nil {
		share = s.share(r)
		defer share.release()
	}
	var b []byte
	var bp *[]byte
	est := answerEstimate(cs)
	if est > heldFree {
		if err := share.add(est); err != nil {
			s.shareFailed(w, "captures", err)
			return
		}
		b = make([]byte, 0, est)
	} else {
		bp = buffers.Get().(*[]byte)
		b = (*bp)[:0]
	}
	b = appendCaptures(b, url, matchType, cs, next)
	if over := int64(len(b)) - max(est, heldFree); over > 0 { // escaping made it longer than estimated
		if err := share.add(over); err != nil {
			s.shareFailed(w, "captures", err)
			return
		}
	}
	share.built()
	if keep.ix != nil {
		s.answers.put(keep, cs, b)
	}
	h := w.Header()
	h["Content-Type"] = jsonType // canonical keys set directly: no canonicalising on the hot path
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(http.StatusOK)
	if len(b) <= writeChunk {
		w.Write(b)
	} else {
		newDeadlineWriter(w, s.opt.WriteStall, start).Write(b)
	}
	if bp != nil && cap(b) <= heldFree {
		*bp = b
		buffers.Put(bp)
	}
}

// answerEstimate is about how many bytes appendCaptures writes for cs: its strings as they are
// (escaping makes a few longer) and the fixed part of each object.
func answerEstimate(cs []capture) int64 {
	n := int64(256)
	for i := range cs {
		n += 400 + captureBytes(&cs[i])
	}
	return n
}

// captureBytes is about how many bytes c holds in memory.
func captureBytes(c *capture) int64 {
	n := int64(unsafe.Sizeof(*c)) + int64(len(c.text)+len(c.mime)+len(c.embargoSource)+len(c.file))
	for _, l := range [][]string{c.usage, c.usageRobots, c.usageHeader} {
		for _, u := range l {
			n += int64(len(u)) + 16
		}
	}
	return n
}

// appendCaptures appends the answer, newline-terminated, to b.
func appendCaptures(b []byte, url, matchType string, cs []capture, next string) []byte {
	b = append(b, `{"url":`...)
	b = appendString(b, url)
	if matchType != "" {
		b = append(b, `,"match_type":`...)
		b = appendString(b, matchType)
	}
	b = append(b, `,"captures":[`...)
	for i := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCapture(b, &cs[i])
	}
	b = append(b, ']')
	if next != "" {
		b = append(b, `,"next_cursor":`...)
		b = appendString(b, next)
	}
	return append(b, "}\n"...)
}

// appendCapture appends one capture's JSON object.
func appendCapture(b []byte, c *capture) []byte {
	b = append(b, `{"url":`...)
	b = appendString(b, c.url())
	b = append(b, `,"timestamp":"`...)
	b = time.Unix(0, c.time).UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(c.status), 10)
	if c.released {
		b = append(b, `,"state":"released","release_at":"`...)
	} else {
		b = append(b, `,"state":"embargoed","release_at":"`...)
	}
	b = time.Unix(0, c.releaseAt).UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	if c.due {
		b = append(b, `,"due":true`...)
	}
	if c.embargoSource != "" {
		b = append(b, `,"embargo_source":`...)
		b = appendString(b, c.embargoSource)
	}
	b = append(b, `,"payload_digest":`...)
	b = appendString(b, c.digest())
	if c.mime != "" {
		b = append(b, `,"mime":`...)
		b = appendString(b, c.mime)
	}
	if h := c.headers(); h != "" {
		b = append(b, `,"headers":`...)
		b = append(b, h...) // compact JSON checked at load
	}
	b = append(b, `,"content_usage":[`...)
	for i, u := range c.usageRobots {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, u)
	}
	for i, u := range c.usageHeader {
		if i > 0 || len(c.usageRobots) > 0 {
			b = append(b, ',')
		}
		b = appendString(b, u)
	}
	if c.usageRobots == nil && c.usageHeader == nil { // a line from before the raw statements were published
		for i, u := range c.usage {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, u)
		}
	}
	b = append(b, `],"usage":{`...)
	for i, label := range usageLabels {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, label)
		b = append(b, ':')
		b = appendString(b, usageValue(c.usage, label))
	}
	b = append(b, '}')
	if c.revisit {
		b = append(b, `,"revisit":true`...)
	}
	if c.released {
		b = append(b, `,"warc":{"file":`...)
		b = appendString(b, c.file)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, c.offset, 10)
		b = append(b, `,"length":`...)
		b = strconv.AppendInt(b, c.length, 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// usageLabels are the vocabulary's category labels, sorted as encoding/json sorts map keys.
var usageLabels = aipref.Categories()

// usageValue is the combined preference for one category label, from the combined expressions
// ("train-ai=n", "search=y"): "allow", "disallow" or "unknown", as `archivectl robots` says it.
func usageValue(combined []string, label string) string {
	for _, u := range combined {
		k, v, _ := strings.Cut(strings.TrimSpace(u), "=")
		if k != label {
			continue
		}
		switch v {
		case "y":
			return "allow"
		case "n":
			return "disallow"
		}
	}
	return "unknown"
}

// appendString appends s as a JSON string, byte for byte as encoding/json writes it: plain
// printable ASCII is copied; anything else (quotes, controls, <, >, &, non-ASCII) goes through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
