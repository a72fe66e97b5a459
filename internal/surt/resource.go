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
// texts (urn:text:), with KIND 1 to 32 lower-case letters and URL an absolute http(s) URL. The
// key is "urn:KIND:" and Key(URL): a page's resources sort apart from every URL, each kind
// beside its page's key. Python's surt knows no such form; this is archivectl's.
func ResourceKey(raw string) (string, error) {
	rest, ok := strings.CutPrefix(raw, "urn:")
	kind, page, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || kind == "" || len(kind) > maxKind || strings.ContainsFunc(kind, func(r rune) bool { return r < 'a' || r > 'z' }) {
		return "", ErrNotResource
	}
	k, err := Key(page)
	if err != nil {
		return "", errors.Join(ErrNotResource, err)
	}
	return "urn:" + kind + ":" + k, nil
}

// ResourceKind is the KIND of a resource URI (ResourceKey), "" when raw is none.
func ResourceKind(raw string) string {
	if _, err := ResourceKey(raw); err != nil {
		return ""
	}
	kind, _, _ := strings.Cut(strings.TrimPrefix(raw, "urn:"), ":")
	return kind
}
