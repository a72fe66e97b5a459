package public

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// stringField is where the value of a string-valued key goes.
func (f *Fields) stringField(key string) *[]byte {
	switch key {
	case "url":
		return &f.URL
	case "mime":
		return &f.Mime
	case "digest":
		return &f.Digest
	case "filename":
		return &f.Filename
	case "release_at":
		return &f.ReleaseAt
	case "embargo_source":
		return &f.EmbargoSource
	case "state":
		return &f.State
	case "refers_to":
		return &f.RefersTo
	case "payload_mime":
		return &f.PayloadMime
	}
	return &f.Time
}

// intField is where the value of an integer-valued key goes.
func (f *Fields) intField(key string) *int64 {
	switch key {
	case "status":
		return &f.Status
	case "length":
		return &f.Length
	}
	return &f.Offset
}

// fastFields decodes the JSON block exactly as json.Marshal writes CDXJ: no whitespace,
// known keys, plain strings, integers. ok is false for anything else, and the caller falls back
// to encoding/json, so both paths agree on every input (FuzzFastFields checks it).
func fastFields(b []byte) (f Fields, ok bool) {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return f, false
	}
	i := 1
	if b[i] == '}' {
		return f, i+1 == len(b)
	}
	for {
		if b[i] != '"' {
			return f, false
		}
		end, esc := scanString(b, i)
		if end < 0 || esc || end >= len(b) || b[end] != ':' {
			return f, false
		}
		key := b[i+1 : end-1]
		i = end + 1
		if i >= len(b) {
			return f, false
		}
		switch string(key) {
		case "id": // only hashed: kept escaped ("<" is "\u003c" from json.Marshal), decoded without allocating
			end, esc := scanString(b, i)
			if end < 0 || b[i] != '"' {
				return f, false
			}
			f.ID, f.IDEscaped, i = b[i+1:end-1], esc, end
		case "url", "mime", "digest", "filename", "release_at", "embargo_source", "state", "time", "refers_to", "payload_mime":
			s, next, ok := readString(b, i)
			if !ok {
				return f, false
			}
			*f.stringField(string(key)), i = s, next
		case "status", "length", "offset":
			n, next, ok := readInt(b, i)
			if !ok {
				return f, false
			}
			*f.intField(string(key)), i = n, next
		case "revisit", "headers_truncated":
			v := &f.Revisit
			if string(key) == "headers_truncated" {
				v = &f.HeadersTruncated
			}
			switch {
			case bytes.HasPrefix(b[i:], []byte("true")):
				*v, i = true, i+4
			case bytes.HasPrefix(b[i:], []byte("false")):
				*v, i = false, i+5
			default:
				return f, false
			}
		case "usage", "usage_robots", "usage_header":
			next, ok := skipStringArray(b, i)
			if !ok {
				return f, false
			}
			*f.usageField(string(key)), i = b[i:next], next
		case "headers":
			next, ok := skipPairs(b, i)
			if !ok {
				return f, false
			}
			f.Headers, i = b[i:next], next
		default:
			if foldsToKnown(key) || b[i] != '"' { // encoding/json matches keys case-insensitively
				return f, false
			}
			end, _ := scanString(b, i)
			if end < 0 {
				return f, false
			}
			i = end
		}
		if i >= len(b) {
			return f, false
		}
		switch b[i] {
		case ',':
			i++
			if i >= len(b) {
				return f, false
			}
		case '}':
			return f, i+1 == len(b)
		default:
			return f, false
		}
	}
}

// known are the JSON names fastFields reads.
var known = []string{"url", "mime", "status", "digest", "length", "offset", "filename", "usage",
	"usage_robots", "usage_header", "release_at", "embargo_source", "id", "state", "time", "headers", "headers_truncated", "revisit", "refers_to", "payload_mime"}

// foldsToKnown reports whether an unknown key would still match a known field in encoding/json.
func foldsToKnown(key []byte) bool {
	for _, k := range known {
		if bytes.EqualFold(key, []byte(k)) {
			return true
		}
	}
	return false
}

// scanString returns the index just after the JSON string that starts at b[i] == '"', and
// whether it needs decoding (an escape or a non-ASCII byte); end is -1 when it is not a valid string.
func scanString(b []byte, i int) (end int, esc bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, esc
		case c == '\\':
			esc = true
			j++
			if j >= len(b) {
				return -1, esc
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) {
					return -1, esc
				}
				for _, h := range b[j+1 : j+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1, esc
					}
				}
				j += 4
			default:
				return -1, esc
			}
		case c < 0x20:
			return -1, esc
		case c >= 0x80:
			esc = true
		}
	}
	return -1, esc
}

// readString reads the JSON string at b[i]: a view when it is plain, else a decoded copy.
func readString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	end, esc := scanString(b, i)
	if end < 0 {
		return nil, 0, false
	}
	if !esc {
		return b[i+1 : end-1], end, true
	}
	var str string
	if json.Unmarshal(b[i:end], &str) != nil {
		return nil, 0, false
	}
	return []byte(str), end, true
}

// readInt reads a JSON integer (-?(0|[1-9][0-9]*)) at b[i] that fits an int64.
func readInt(b []byte, i int) (n int64, next int, ok bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	start := j
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == start || (b[start] == '0' && j > start+1) {
		return 0, 0, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return 0, 0, false
	}
	n, err := strconv.ParseInt(string(b[i:j]), 10, 64)
	return n, j, err == nil
}

// skipStringArray skips a JSON array of strings at b[i] (or null, which reads as absent).
func skipStringArray(b []byte, i int) (next int, ok bool) {
	if bytes.HasPrefix(b[i:], []byte("null")) {
		return i + 4, false // rare: let encoding/json say what null means
	}
	if b[i] != '[' {
		return 0, false
	}
	i++
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for i < len(b) {
		if b[i] != '"' {
			return 0, false
		}
		end, _ := scanString(b, i)
		if end < 0 || end >= len(b) {
			return 0, false
		}
		switch b[end] {
		case ',':
			i = end + 1
		case ']':
			return end + 1, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// skipPairs skips a JSON array of [name, value] string pairs at b[i], each string plain ASCII,
// so that the raw bytes can be served as they are.
func skipPairs(b []byte, i int) (next int, ok bool) {
	if b[i] != '[' {
		return 0, false
	}
	i++
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for i < len(b) {
		if b[i] != '[' || i+1 >= len(b) || b[i+1] != '"' {
			return 0, false
		}
		end, esc := scanString(b, i+1)
		if end < 0 || esc || end+1 >= len(b) || b[end] != ',' || b[end+1] != '"' {
			return 0, false
		}
		end2, esc := scanString(b, end+1)
		if end2 < 0 || esc || end2+1 >= len(b) || b[end2] != ']' {
			return 0, false
		}
		switch b[end2+1] {
		case ',':
			i = end2 + 2
		case ']':
			return end2 + 2, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// parseTime reads an RFC 3339 time in UTC as the releaser writes it ("2006-01-02T15:04:05Z",
// optionally with a fraction) without allocating, and anything else through time.Parse.
func parseTime(b []byte) (int64, error) {
	if n, ok := fastTime(b); ok {
		return n, nil
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return 0, err
	}
	return t.UnixNano(), nil
}

// fastTime parses "YYYY-MM-DDTHH:MM:SS[.fraction]Z"; ok is false for any other form or an invalid date.
func fastTime(b []byte) (int64, bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	num := func(s []byte) int {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	y, mo, d, h, mi, s := num(b[0:4]), num(b[5:7]), num(b[8:10]), num(b[11:13]), num(b[14:16]), num(b[17:19])
	if y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 {
		return 0, false
	}
	if d > time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return 0, false
	}
	ns := 0
	switch frac := b[19 : len(b)-1]; {
	case len(frac) == 0:
	case frac[0] == '.' && len(frac) >= 2 && len(frac) <= 10:
		if ns = num(frac[1:]); ns < 0 {
			return 0, false
		}
		for range 10 - len(frac) {
			ns *= 10
		}
	default:
		return 0, false
	}
	return time.Date(y, time.Month(mo), d, h, mi, s, ns, time.UTC).UnixNano(), true
}

// unescape appends the decoded content of a JSON string (without its quotes) to dst. ok is false
// for what it does not handle (non-ASCII bytes, surrogates); the caller then uses encoding/json.
func unescape(dst, s []byte) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return dst, false
		}
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		if i++; i >= len(s) {
			return dst, false
		}
		switch s[i] {
		case '"', '\\', '/':
			dst = append(dst, s[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			if i+4 >= len(s) {
				return dst, false
			}
			var r rune
			for _, h := range s[i+1 : i+5] {
				switch {
				case h >= '0' && h <= '9':
					r = r<<4 | rune(h-'0')
				case h >= 'a' && h <= 'f':
					r = r<<4 | rune(h-'a'+10)
				case h >= 'A' && h <= 'F':
					r = r<<4 | rune(h-'A'+10)
				default:
					return dst, false
				}
			}
			if r >= 0xd800 && r < 0xe000 {
				return dst, false
			}
			dst = utf8.AppendRune(dst, r)
			i += 4
		default:
			return dst, false
		}
	}
	return dst, true
}
