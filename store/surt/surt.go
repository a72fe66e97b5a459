// Package surt computes SURT keys (Sort-friendly URI Reordering Transform), the sort key of the
// sealed index and of the public CDXJ. It uses the standard library only, so that the lookup
// service can compute keys without linking the store.
package surt

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// Key returns the Sort-friendly URI Reordering Transform key of a URL, as CDX servers use:
// host reversed and comma-separated, then ")" and the path and query, e.g. "com,example)/a/b?x=1".
// Variants of one URL share a key: scheme, "www." prefixes, default ports, case, fragment,
// a trailing slash and the order of query parameters do not count.
func Key(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("surt: %w", err)
	}
	if u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("surt: %q is not an absolute http(s) URL", raw)
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	labels := strings.Split(host, ".")
	if net.ParseIP(host) != nil {
		labels = []string{host} // an IP address is not reversed
	} else if len(labels) > 2 && strings.HasPrefix(labels[0], "www") && strings.Trim(labels[0][3:], "0123456789") == "" {
		labels = labels[1:]
	}
	slices.Reverse(labels)
	var b strings.Builder
	b.WriteString(strings.Join(labels, ","))
	if p := u.Port(); p != "" && !(p == "80" && u.Scheme == "http") && !(p == "443" && u.Scheme == "https") {
		b.WriteString(":" + p)
	}
	b.WriteByte(')')
	path := strings.ToLower(u.EscapedPath())
	if len(path) > 1 {
		path = strings.TrimRight(path, "/")
	}
	if path == "" {
		path = "/"
	}
	b.WriteString(path)
	if u.RawQuery != "" {
		q := strings.Split(strings.ToLower(u.RawQuery), "&")
		slices.Sort(q)
		b.WriteString("?" + strings.Join(q, "&"))
	}
	return b.String(), nil
}
