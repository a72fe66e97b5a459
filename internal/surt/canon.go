package surt

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// safe marks the bytes escapeOnce keeps: every printable ASCII byte but space, "#" and "%".
var safe = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = c != '#' && c != '%'
	}
	return t
}()

// escapeOnce percent-encodes, in upper-case hex, every byte that is not printable ASCII, and
// space, "#" and "%".
func escapeOnce(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !safe[s[i]] {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; safe[c] {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

// unescapeRepeatedly decodes %XX sequences (either case of hex digit) until none is left; a "%"
// not followed by two hex digits stays.
func unescapeRepeatedly(s string) string {
	for {
		u := unescape(s)
		if u == s {
			return s
		}
		s = u
	}
}

// unescape decodes the %XX sequences of s in one pass, left to right.
func unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// normalizePath resolves "." and ".." segments ("..", above the root, stays) and drops empty
// segments but the last, so that a trailing slash stays; an empty path is "/".
func normalizePath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] == '/' && !strings.Contains(p, "//") && !strings.Contains(p, "/.") {
		return p // no empty, "." or ".." segment: nothing to do (most paths)
	}
	return resolvePath(p)
}

// resolvePath is normalizePath of a non-empty path, segment by segment.
func resolvePath(p string) string {
	segs := strings.Split(p, "/")[1:]
	kept := make([]string, 0, len(segs))
	for _, s := range segs {
		switch s {
		case ".":
		case "..":
			if len(kept) > 0 {
				kept = kept[:len(kept)-1]
			} else {
				kept = append(kept, s)
			}
		default:
			kept = append(kept, s)
		}
	}
	var b strings.Builder
	b.WriteByte('/')
	for i, s := range kept {
		switch {
		case i == len(kept)-1:
			b.WriteString(s)
		case s != "":
			b.WriteString(s)
			b.WriteByte('/')
		}
	}
	return b.String()
}

var (
	decimalIP = regexp.MustCompile(`^[1-9][0-9]*(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$`)
	octalIP   = regexp.MustCompile(`^0[0-7]*(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$`)
)

// attemptIPFormats reads a host as an IPv4 address: a number alone is taken modulo 2^32; one to
// four dot-separated numbers in the forms inet_aton reads (decimal, or octal with a leading 0;
// the last part filling the remaining bytes) are that address. It returns the dotted quad.
func attemptIPFormats(h string) (string, bool) {
	if h == "" {
		return "", false
	}
	if strings.Trim(h, "0123456789") == "" {
		var v uint32
		for i := 0; i < len(h); i++ {
			v = v*10 + uint32(h[i]-'0')
		}
		return dotted(v), true
	}
	if strings.Trim(h, "0123456789.") != "" || (!decimalIP.MatchString(h) && !octalIP.MatchString(h)) {
		return "", false
	}
	parts := strings.Split(h, ".")
	var v uint64
	for i, p := range parts {
		base := 10
		if len(p) > 1 && p[0] == '0' {
			base = 8
		}
		n, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return "", false
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return "", false
			}
			v |= n << (24 - 8*i)
			continue
		}
		if n > 0xffffffff>>(8*i) {
			return "", false
		}
		v |= n
	}
	return dotted(uint32(v)), true
}

func dotted(v uint32) string {
	return strconv.Itoa(int(v>>24)) + "." + strconv.Itoa(int(v>>16&0xff)) + "." + strconv.Itoa(int(v>>8&0xff)) + "." + strconv.Itoa(int(v&0xff))
}

// idnaProfile converts a host as Python's IDNA 2003 codec does, as far as UTS #46 transitional
// processing agrees with it: characters mapped (case folded, "ß" to "ss"), none of the IDNA 2008
// rules on hyphens, joiners or STD3 characters.
var idnaProfile = idna.New(idna.MapForLookup(), idna.Transitional(true), idna.StrictDomainName(false),
	idna.CheckHyphens(false), idna.CheckJoiners(false))

// toASCII IDNA-encodes a host that is not ASCII (invalid UTF-8 dropped first). A host the codec
// refuses, or with an empty label or one longer than 63 bytes, stays as it was.
func toASCII(h string) string {
	a, err := idnaProfile.ToASCII(strings.ToValidUTF8(h, ""))
	if err != nil {
		return h
	}
	labels := strings.Split(strings.TrimSuffix(a, "."), ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return h
		}
	}
	return a
}

// The session ids the Internet Archive's canonicaliser removes from paths and queries.
var (
	pathSessionIDs = []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^\?]+\.aspx.*)$`),
		regexp.MustCompile(`(?i)^(.*/)(\([0-9a-z]{24}\)/)([^\?]+\.aspx.*)$`),
	}
	querySessionIDs = []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$`),
	}
)

// stripPathSessionID removes an ASP.NET session id segment from a path to an .aspx page.
func stripPathSessionID(p string) string {
	if !strings.Contains(p, ".aspx") || !strings.Contains(p, "(") { // what every pattern needs (p is lowercase)
		return p
	}
	for _, re := range pathSessionIDs {
		if m := re.FindStringSubmatch(p); m != nil {
			p = m[1] + m[3]
		}
	}
	return p
}

// stripQuerySessionID removes Java, PHP, ASP and ColdFusion session ids from a query, each
// pattern applied once, in order.
func stripQuerySessionID(q string) string {
	if low := lowerASCII(q); !strings.Contains(low, "sid=") && !strings.Contains(low, "sessionid") && !strings.Contains(low, "cfid=") {
		return q // none of the patterns can match (each needs one of these)
	}
	for _, re := range querySessionIDs {
		if m := re.FindStringSubmatch(q); m != nil {
			q = m[1] + m[2]
		}
	}
	return q
}

// alphaReorderQuery sorts the "&"-separated parameters of a query by name, then by value, a
// parameter without "=" before one with it; an empty parameter sorts first.
func alphaReorderQuery(q string) string {
	if len(q) <= 1 {
		return q
	}
	type param struct {
		name, value string
		hasValue    bool
	}
	var ps []param
	for _, a := range strings.Split(q, "&") {
		n, v, ok := strings.Cut(a, "=")
		ps = append(ps, param{n, v, ok})
	}
	slices.SortStableFunc(ps, func(a, b param) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		switch {
		case a.hasValue != b.hasValue && a.hasValue:
			return 1
		case a.hasValue != b.hasValue:
			return -1
		}
		return strings.Compare(a.value, b.value)
	})
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.name)
		if p.hasValue {
			b.WriteByte('=')
			b.WriteString(p.value)
		}
	}
	return b.String()
}
