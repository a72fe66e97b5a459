package robots

import "strings"

// pattern is a compiled path pattern: the normalised pattern (docs/rules.md#d4) without a final '$', where
// each '*' is a wildcard and everything else literal.
type pattern struct {
	lit      string // normalised pattern without the final '$'
	star     int32  // index of the first '*' in lit, or -1
	length   int32  // priority: octets of the normalised pattern, '*' and '$' counting one (docs/rules.md#d2)
	anchored bool   // the pattern ended in '$'
}

// compilePattern normalises and compiles a pattern as written in robots.txt.
func compilePattern(raw string) pattern {
	n := normalize(raw, true)
	p := pattern{length: int32(len(n))}
	if strings.HasSuffix(n, "$") {
		p.anchored = true
		n = n[:len(n)-1]
	}
	p.lit, p.star = n, int32(strings.IndexByte(n, '*'))
	return p
}

// prefix is the literal start of the pattern, which every path it matches starts with.
func (p *pattern) prefix() string {
	if p.star < 0 {
		return p.lit
	}
	return p.lit[:p.star]
}

// match reports whether the pattern matches the normalised path-and-query path.
//
// It is the position-set algorithm of RFC 9309 implementations (google/robotstxt): the set of
// path offsets reachable after each pattern octet. After a '*' that set is always the interval
// [min, len(path)], so only its minimum matters; each literal segment then moves the minimum
// to the end of its first occurrence at or after it. The set at the end is non-empty iff every
// segment was found, and contains len(path) (for '$') iff the last segment is a suffix starting
// at or after the minimum. O(|pattern|·|path|), no backtracking, no allocation.
func (p *pattern) match(path string) bool {
	if p.star < 0 {
		if p.anchored {
			return path == p.lit
		}
		return strings.HasPrefix(path, p.lit)
	}
	if !strings.HasPrefix(path, p.lit[:p.star]) {
		return false
	}
	pos, rest := int(p.star), p.lit[p.star+1:]
	for {
		seg, more := rest, false
		if i := strings.IndexByte(rest, '*'); i >= 0 {
			seg, rest, more = rest[:i], rest[i+1:], true
		}
		if !more && p.anchored {
			return len(path)-len(seg) >= pos && strings.HasSuffix(path, seg)
		}
		j := strings.Index(path[pos:], seg)
		if j < 0 {
			return false
		}
		pos += j + len(seg)
		if !more {
			return true
		}
	}
}

// normalize applies the percent-encoding normalisation of RFC 9309 §2.2.2 (docs/rules.md#d4) to a pattern
// or to a path-and-query: octets outside printable ASCII, and the unsafe characters that no
// URI may hold unencoded, are encoded as uppercase %XX, existing
// %xx get uppercase hex, and %XX standing for an unreserved character is decoded. In a path, a
// literal '*' or '$' becomes %2A or %24; in a pattern '*' stays a wildcard, a final '$' stays
// the anchor, and any other '$' is the literal %24. It returns s itself when nothing changes.
func normalize(s string, isPattern bool) string {
	i := 0
	for ; i < len(s); i++ {
		if !plain[s[i]] && needsRewrite(s, i, isPattern) {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(3 * len(s)) // every octet may become %XX
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case plain[c]:
			b.WriteByte(c)
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperHex(s[i+1]))
				b.WriteByte(upperHex(s[i+2]))
			}
			i += 2
		case c <= ' ' || c >= 0x7F || unsafeASCII[c]:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		case c == '*' && !isPattern:
			b.WriteString("%2A")
		case c == '$' && (!isPattern || i != len(s)-1):
			b.WriteString("%24")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// needsRewrite reports whether normalize would change the octet at s[i].
func needsRewrite(s string, i int, isPattern bool) bool {
	c := s[i]
	switch {
	case c <= ' ' || c >= 0x7F || unsafeASCII[c]:
		return true
	case c == '%':
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return false
		}
		v := unhex(s[i+1])<<4 | unhex(s[i+2])
		return isUnreserved(v) || isLowerHex(s[i+1]) || isLowerHex(s[i+2])
	case c == '*':
		return !isPattern
	case c == '$':
		return !isPattern || i != len(s)-1
	}
	return false
}

// hexDigits are the uppercase hex digits used in %XX.
const hexDigits = "0123456789ABCDEF"

// plain marks the octets normalize never changes: printable ASCII other than '%', '*', '$'
// and the unsafe characters.
var plain = func() (t [256]bool) {
	for c := byte('!'); c <= '~'; c++ {
		t[c] = c != '%' && c != '*' && c != '$' && !unsafeASCII[c]
	}
	return t
}()

// unsafeASCII marks the printable ASCII characters that RFC 3986 allows nowhere in a URI, so
// that they are always sent encoded: " < > \ ^ ` { | }. Encoding them on both sides makes a
// pattern written with them match the URL as sent (net/url encodes them in paths).
var unsafeASCII = func() (t [256]bool) {
	for _, c := range []byte("\"<>\\^`{|}") {
		t[c] = true
	}
	return t
}()

// isHex reports whether c is a hex digit.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isLowerHex reports whether c is a lowercase hex letter.
func isLowerHex(c byte) bool { return 'a' <= c && c <= 'f' }

// upperHex uppercases a hex digit.
func upperHex(c byte) byte {
	if isLowerHex(c) {
		return c - ('a' - 'A')
	}
	return c
}

// unhex is the value of a hex digit.
func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// isUnreserved reports whether c is an RFC 3986 unreserved character.
func isUnreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
