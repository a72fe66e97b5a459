package extract

import (
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Canonical returns the form of u the crawler's frontier de-duplicates on, which every reference
// this package gives is in: scheme in lower case, the host in its ASCII form (ASCIIHost), default
// port and fragment dropped, an empty path made "/", dot segments removed. ok is false for
// anything the crawler cannot fetch (not http(s), no host, a host IDNA cannot convert, a bad
// port, user information).
func Canonical(u *url.URL) (*url.URL, bool) {
	if u == nil || u.Opaque != "" || u.User != nil {
		return nil, false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, false
	}
	host, ok := ASCIIHost(u.Hostname())
	if !ok || strings.Contains(host, "..") { // checked before the root dot goes, so "a.." is no "a."
		return nil, false
	}
	host = strings.TrimSuffix(host, ".")
	if host == "" || host[0] == '.' {
		return nil, false
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n <= 0 || n > 65535 {
			return nil, false
		}
		if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
			port = ""
		} else {
			port = strconv.Itoa(n)
		}
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	c := &url.URL{Scheme: scheme, Host: host, Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
	if c.Path == "" {
		c.Path, c.RawPath = "/", ""
	}
	// ResolveReference removes "." and ".." segments; a path without any, and without an
	// escaped form of its own, is the same after it (dotSegmentFree).
	if c.RawPath != "" || !dotSegmentFree(c.Path) {
		c = c.ResolveReference(&url.URL{Path: c.Path, RawPath: c.RawPath, RawQuery: c.RawQuery})
	}
	return c, true
}

// dotSegmentFree reports whether no segment of the path p is "." or "..".
func dotSegmentFree(p string) bool {
	for p != "" {
		var seg string
		seg, p, _ = strings.Cut(p, "/")
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// ASCIIHost is a host name in the one form every origin is keyed by: lower case, and an
// internationalised name in its IDNA ASCII form (UTS #46 lookup, punycode), the form Go's HTTP
// transport dials and keys its connections by. Both spellings of a name, bücher.example and
// xn--bcher-kva.example, are one host, so one origin, one queue and one politeness clock
// (docs/rules.md#d24). An ASCII name is only lowered, as the transport leaves it; ok is false
// for a name IDNA refuses.
func ASCIIHost(h string) (string, bool) {
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			a, err := idna.Lookup.ToASCII(h)
			return strings.ToLower(a), err == nil
		}
	}
	return strings.ToLower(h), true
}
