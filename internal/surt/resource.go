package surt

import (
	"errors"
	"strings"
)

// ErrNotResource is ResourceKey's error for a URI that is not urn:KIND: and an http(s) URL.
var ErrNotResource = errors.New("not a page's resource URI (urn:KIND: and the page's http(s) URL)")

// maxKind bounds the KIND of a resource URI.
const maxKind = 32

// ResourceKey returns the key of a resource derived from a page, such as a browser's snapshot
// of it: a target URI "urn:KIND:URL", as Browsertrix names its screenshots (urn:view:) and page
// texts (urn:text:), with KIND 1 to 32 lower-case letters and URL an absolute http(s) URL (one
// Key takes). The key is the URI itself, as warcio's CDXJ indexer (js-wacz, Browsertrix) keys a
// record whose target is no http(s) URL: it sorts apart from every URL's key.
func ResourceKey(raw string) (string, error) {
	rest, ok := strings.CutPrefix(raw, "urn:")
	kind, page, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || kind == "" || len(kind) > maxKind || strings.ContainsFunc(kind, func(r rune) bool { return r < 'a' || r > 'z' }) {
		return "", ErrNotResource
	}
	if _, err := Key(page); err != nil {
		return "", errors.Join(ErrNotResource, err)
	}
	if strings.ContainsAny(raw, " \t\r\n") { // a key ends at the first space of a CDXJ line
		return "", ErrNotResource
	}
	return raw, nil
}

// ResourceKind is the KIND of a resource URI (ResourceKey), "" when raw is none.
func ResourceKind(raw string) string {
	if _, err := ResourceKey(raw); err != nil {
		return ""
	}
	kind, _, _ := strings.Cut(strings.TrimPrefix(raw, "urn:"), ":")
	return kind
}
