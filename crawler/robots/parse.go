// Package robots reads robots.txt files (RFC 9309) with the Archive-Embargo, Embargo-Allow
// and Content-Usage extension rules, decides which URLs a crawler may fetch, lints a file for
// the publisher self-check, and reports a decision in the `archivectl robots` JSON shape.
//
// The package does no I/O: it decides on the bytes and the fetch outcome (File) it is given.
// Fetching and caching the file of each origin is crawler/robots/fetch's.
//
// Parsing is apart from deciding, as in google/robotstxt: Parse only tokenises lines and
// hands records to a Handler; NewPolicy builds a Policy with one such handler.
package robots

import "strings"

// Record is one parsed robots.txt line.
type Record struct {
	Line  int    // 1-based line number; CRLF counts as one line end
	Key   Key    // the record type
	Name  string // the key as written, trimmed (useful for KeyUnknown)
	Value string // the value, cut at '#' and trimmed of SP/HTAB; may be empty
}

// Handler receives the records of a robots.txt body in file order.
type Handler interface {
	HandleRecord(r Record)
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(r Record)

// HandleRecord calls f(r).
func (f HandlerFunc) HandleRecord(r Record) { f(r) }

// Parse tokenises body and calls h once per line that holds a key and a value. It parses all
// of body: callers apply the size limit (NewPolicy does, docs/rules.md#d11). A leading UTF-8 byte order mark,
// even a partial one, is skipped; lines end at CR, LF or CRLF; a comment runs from '#' to the
// end of the line; lines without a key are dropped.
func Parse(body []byte, h Handler) {
	parseString(string(body), h)
}

// parseString is Parse over a string, so that every Record's strings share one copy of the body.
func parseString(s string, h Handler) {
	for i := 0; i < 3 && len(s) > 0 && s[0] == "\xEF\xBB\xBF"[i]; i++ {
		s = s[1:]
	}
	// The next LF and CR are each searched for once per occurrence, so files with only one
	// kind of line end still parse in linear time.
	nextLF, nextCR := -1, -1
	for line, pos := 1, 0; ; line++ {
		if nextLF < pos {
			nextLF = indexFrom(s, pos, '\n')
		}
		if nextCR < pos {
			nextCR = indexFrom(s, pos, '\r')
		}
		end := min(nextLF, nextCR)
		if r, ok := parseLine(s[pos:end]); ok {
			r.Line = line
			h.HandleRecord(r)
		}
		if end == len(s) {
			return
		}
		pos = end + 1
		if s[end] == '\r' && pos < len(s) && s[pos] == '\n' {
			pos++
		}
		if pos == len(s) {
			return
		}
	}
}

// indexFrom is the index of the first c in s at or after from, or len(s).
func indexFrom(s string, from int, c byte) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return len(s)
}

// parseLine splits one line into key and value. A line without ':' is accepted when it has
// exactly two words, the first being the key (docs/rules.md#d20).
func parseLine(text string) (Record, bool) {
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	text = trimWS(text)
	if text == "" {
		return Record{}, false
	}
	var name, value string
	if i := strings.IndexByte(text, ':'); i >= 0 {
		name, value = trimWS(text[:i]), trimWS(text[i+1:])
	} else {
		i := strings.IndexAny(text, " \t")
		if i < 0 {
			return Record{}, false
		}
		name, value = text[:i], trimWS(text[i:])
		if strings.ContainsAny(value, " \t") {
			return Record{}, false
		}
	}
	if name == "" {
		return Record{}, false
	}
	return Record{Key: lookupKey(name), Name: name, Value: value}, true
}

// trimWS removes SP and HTAB at both ends.
func trimWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
