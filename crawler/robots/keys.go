package robots

import "strings"

// Key is the record type of one robots.txt line.
type Key uint8

// The record types Parse recognises; any other key is KeyUnknown.
const (
	KeyUnknown        Key = iota // a line with a key Parse does not know
	KeyUserAgent                 // user-agent: starts or joins a group
	KeyAllow                     // allow: an access rule
	KeyDisallow                  // disallow: an access rule
	KeySitemap                   // sitemap: outside groups (docs/rules.md#d21)
	KeyCrawlDelay                // crawl-delay: an other record of the group (docs/rules.md#d19)
	KeyArchiveEmbargo            // archive-embargo: the group's embargo period
	KeyEmbargoAllow              // embargo-allow: an allow for embargo-honouring crawlers
	KeyContentUsage              // content-usage: an AI usage preference with an optional path
)

// keys lists every accepted spelling with its record type: the RFC's and the extensions'
// keys, and Google's typo list (docs/rules.md#d20). Keys match case-insensitively and exactly, never by prefix.
var keys = []struct {
	name string
	key  Key
}{
	{"user-agent", KeyUserAgent},
	{"useragent", KeyUserAgent},
	{"user agent", KeyUserAgent},
	{"allow", KeyAllow},
	{"disallow", KeyDisallow},
	{"dissallow", KeyDisallow},
	{"dissalow", KeyDisallow},
	{"disalow", KeyDisallow},
	{"diasllow", KeyDisallow},
	{"disallaw", KeyDisallow},
	{"sitemap", KeySitemap},
	{"site-map", KeySitemap},
	{"crawl-delay", KeyCrawlDelay},
	{"archive-embargo", KeyArchiveEmbargo},
	{"embargo-allow", KeyEmbargoAllow},
	{"content-usage", KeyContentUsage},
}

// lookupKey finds the record type of a key as written.
func lookupKey(name string) Key {
	for _, k := range keys {
		if len(k.name) == len(name) && strings.EqualFold(k.name, name) {
			return k.key
		}
	}
	return KeyUnknown
}

// String is the canonical key of the record type.
func (k Key) String() string {
	switch k {
	case KeyUserAgent:
		return "user-agent"
	case KeyAllow:
		return "allow"
	case KeyDisallow:
		return "disallow"
	case KeySitemap:
		return "sitemap"
	case KeyCrawlDelay:
		return "crawl-delay"
	case KeyArchiveEmbargo:
		return "archive-embargo"
	case KeyEmbargoAllow:
		return "embargo-allow"
	case KeyContentUsage:
		return "content-usage"
	}
	return "unknown"
}

// Rule reports whether the key is a rule in the sense of the ABNF, so that it ends a run of
// user-agent lines: allow and disallow, and the extensions' rules (docs/rules.md#d1).
func (k Key) Rule() bool {
	switch k {
	case KeyAllow, KeyDisallow, KeyArchiveEmbargo, KeyEmbargoAllow, KeyContentUsage:
		return true
	}
	return false
}
