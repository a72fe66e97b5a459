// Package surt computes SURT keys (Sort-friendly URI Reordering Transform), the sort key of the
// sealed index and of the public CDXJ, exactly as the Python package surt does by default (the
// canonicalisation pywb, cdxj-indexer and OutbackCDX's clients key captures with). It uses the
// standard library and golang.org/x/net/idna only, so that the lookup service can compute keys
// without linking the store.
package surt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Key returns the SURT key of a URL as Python's surt.surt(url) gives it with its default options:
// host reversed and comma-separated (an IPv4 address too), an optional ":port", ")", then the
// path and query, e.g. "com,example)/a/b?x=1". Variants of one URL share a key: the scheme,
// leading "www", "www2"… labels, default ports, case, the fragment, a trailing slash, dot
// segments, percent-encoding, session ids and the order of query parameters do not count. Only
// absolute URLs whose scheme is http or https have keys (Python's surt also takes a URL without
// a scheme, as http).
func Key(raw string) (string, error) {
	u, err := parse(raw)
	if err != nil {
		return "", fmt.Errorf("surt: %q: %w", raw, err)
	}
	u.canonicalize()
	if u.host == "" {
		return "", fmt.Errorf("surt: %q is not an absolute http(s) URL", raw)
	}
	var b strings.Builder
	b.Grow(len(u.host) + len(u.path) + len(u.query) + 8)
	labels := strings.Split(u.host, ".")
	for i := len(labels) - 1; i >= 0; i-- {
		b.WriteString(labels[i])
		if i > 0 {
			b.WriteByte(',')
		}
	}
	if u.port > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(u.port))
	}
	b.WriteByte(')')
	b.WriteString(u.path)
	if u.hasQuery {
		b.WriteByte('?')
		b.WriteString(u.query)
	}
	return b.String(), nil
}

// url is a URL taken apart the way Python surt's handyurl does: host and path are bytes as found
// (nothing decoded yet), the port is a number (0: none), the query present or not.
type url struct {
	scheme   string
	host     string
	port     int
	path     string
	query    string
	hasQuery bool
}

var errScheme = errors.New("not an absolute http(s) URL")

// parse splits raw as handyurl.parse does: surrounding ASCII whitespace and every CR, LF and tab
// removed, repeated "http(s)://" prefixes reduced to the last, then RFC 3986 appendix B's split. A host-less http URL takes its host from the path
// ("http:////example.com/a"). A port that is not a number from 0 to 65535 is an error.
func parse(raw string) (url, error) {
	var u url
	s := strings.Trim(raw, " \t\n\r\v\f")
	if strings.ContainsAny(s, "\t\n\r") {
		b := make([]byte, 0, len(s))
		for i := 0; i < len(s); i++ {
			if c := s[i]; c != '\t' && c != '\n' && c != '\r' {
				b = append(b, c)
			}
		}
		s = string(b)
	}
	if schemeLen(s) < 0 {
		return u, errScheme // Python's surt takes it as http://…; archivectl keys absolute URLs only
	}
	s = lastProtocol(s)
	n := schemeLen(s)
	u.scheme, s = s[:n], s[n+1:]
	if low := strings.ToLower(u.scheme); low != "http" && low != "https" {
		return u, errScheme
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s, u.query = s[:i], s[i+1:]
		u.hasQuery = u.query != ""
	}
	netloc := ""
	if rest, ok := strings.CutPrefix(s, "//"); ok {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			i = len(rest)
		}
		netloc, s = rest[:i], rest[i:]
	}
	u.path = s
	host, port, err := hostPort(strings.TrimRight(netloc, ":"))
	if err != nil {
		return u, err
	}
	u.host, u.port = host, port
	if host == "" && strings.HasPrefix(u.scheme, "http") && u.path != "" {
		h, p, _ := strings.Cut(strings.TrimLeft(u.path, "/"), "/")
		u.host, u.path = h, "/"+p
	}
	return u, nil
}

// schemeLen is the length of s's scheme ([a-zA-Z][a-zA-Z0-9+.-]* followed by ":"), or -1.
func schemeLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

// lastProtocol reduces a run of "http://" and "https://" prefixes to its last one
// ("http://https://example.com" is "https://example.com").
func lastProtocol(s string) string {
	last, rest, n := "", s, 0
	for ; ; n++ {
		var p string
		switch {
		case strings.HasPrefix(rest, "http://"):
			p = "http://"
		case strings.HasPrefix(rest, "https://"):
			p = "https://"
		default:
			if n <= 1 {
				return s
			}
			return last + rest
		}
		last, rest = p, rest[len(p):]
	}
}

// hostPort splits a netloc as Python's urllib does: user information (up to the last "@") dropped,
// a bracketed IPv6 host taken without its brackets, the port after the host's first ":" (after
// "]" for a bracketed one). The host is lowercased; a port of 0 is none.
func hostPort(netloc string) (string, int, error) {
	if i := strings.LastIndexByte(netloc, '@'); i >= 0 {
		netloc = netloc[i+1:]
	}
	var host, port string
	if _, bracketed, ok := strings.Cut(netloc, "["); ok {
		var after string
		host, after, _ = strings.Cut(bracketed, "]")
		_, port, _ = strings.Cut(after, ":")
	} else {
		host, port, _ = strings.Cut(netloc, ":")
	}
	if port == "" {
		return lowerASCII(host), 0, nil
	}
	n := 0
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return "", 0, fmt.Errorf("port %q is not a number", port)
		}
		if n = n*10 + int(port[i]-'0'); n > 65535 {
			return "", 0, fmt.Errorf("port %s is out of range 0-65535", port)
		}
	}
	return lowerASCII(host), n, nil
}

// canonicalize applies Python surt's default canonicaliser: Google's rules (the fragment dropped,
// percent-encoding made minimal, the host decoded, IDNA-encoded, rid of empty labels and, when it
// is an IPv4 address in any of the forms inet_aton reads, written as a dotted quad; dot segments
// and empty segments removed from the path), then the Internet Archive's (case folded, "www"
// labels and default ports dropped, session ids removed, a trailing slash dropped, query
// parameters sorted).
func (u *url) canonicalize() {
	if u.hasQuery {
		u.query = escapeOnce(unescapeRepeatedly(u.query))
	}
	if u.host != "" {
		h := unescapeRepeatedly(u.host)
		if !isASCII(h) {
			h = toASCII(h)
		}
		h = strings.Trim(strings.ReplaceAll(h, "..", "."), ".")
		if ip, ok := attemptIPFormats(h); ok {
			h = ip
		} else {
			h = escapeOnce(lowerASCII(h))
		}
		u.host = h
	}
	u.path = escapeOnce(normalizePath(unescapeRepeatedly(u.path)))

	u.host = massageHost(lowerASCII(u.host))
	if (u.port == 80 && strings.EqualFold(u.scheme, "http")) || (u.port == 443 && strings.EqualFold(u.scheme, "https")) {
		u.port = 0
	}
	p := stripPathSessionID(lowerASCII(u.path))
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	u.path = p
	if u.hasQuery {
		u.query = alphaReorderQuery(lowerASCII(stripQuerySessionID(u.query)))
		u.hasQuery = u.query != ""
	}
}

// massageHost drops a leading "www.", "www2." (any digits) label.
func massageHost(h string) string {
	rest, ok := strings.CutPrefix(h, "www")
	if !ok {
		return h
	}
	rest = strings.TrimLeft(rest, "0123456789")
	if after, ok := strings.CutPrefix(rest, "."); ok {
		return after
	}
	return h
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// lowerASCII lowercases A-Z only, as Python's bytes.lower does.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
