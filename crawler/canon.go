package crawler

import (
	"net/url"
	"strconv"
	"strings"
)

// canonical returns the form of u the frontier de-duplicates on: scheme and host in lower case,
// default port and fragment dropped, an empty path made "/", dot segments removed. ok is false
// for anything the crawler cannot fetch (not http(s), no host, a bad port, user information).
func canonical(u *url.URL) (*url.URL, bool) {
	if u == nil || u.Opaque != "" || u.User != nil {
		return nil, false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, false
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, "..") { // checked before the root dot goes, so "a.." is no "a."
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
	// ResolveReference removes "." and ".." segments.
	c = c.ResolveReference(&url.URL{Path: c.Path, RawPath: c.RawPath, RawQuery: c.RawQuery})
	return c, true
}

// origin is a URL's scheme://host[:port], the unit of scope and politeness.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }
