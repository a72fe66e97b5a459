package crawler

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// URL length limits (docs/rules.md#d25). The frontier and the index key captures by URL, and
// bbolt keys are limited to 32,768 bytes: the ceiling leaves room for a SURT form and the rest
// of a key.
const (
	DefaultMaxURLLength = 8192  // bytes; RFC 9110 §4.1 asks every party to support at least 8,000
	MaxURLLengthCeiling = 16384 // the longest limit a crawl may set
)

// ErrURLTooLong is a URL longer than the crawl's limit: it is neither crawled nor followed.
var ErrURLTooLong = errors.New("URL longer than the limit")

// checkURLLength is the one URL length rule: a canonical URL of more than max bytes is refused.
func checkURLLength(u string, max int) error {
	if len(u) > max {
		return fmt.Errorf("%w: %d bytes, the limit is %d (crawl.max_url_length)", ErrURLTooLong, len(u), max)
	}
	return nil
}

// admit drops the items whose URLs are longer than the limit, before they are claimed or
// persisted; found is the URL they were found at. What it drops is logged once for found and
// counted, and never stops the crawl: found itself is sealed whatever its links are.
func (c *Crawl) admit(found string, items []item) []item {
	kept, dropped, first := items[:0], 0, ""
	for _, it := range items {
		if checkURLLength(it.URL, c.cfg.MaxURLLength) != nil {
			if dropped == 0 {
				first = it.URL
			}
			dropped++
			continue
		}
		kept = append(kept, it)
	}
	if dropped > 0 {
		clear(items[len(kept):])
		c.log.Warn("URLs longer than the limit: not followed", "found_at", clip(found), "dropped", dropped,
			"limit", c.cfg.MaxURLLength, "first", clip(first), "first_bytes", len(first))
		c.stats.add(func(s *Summary) { s.TooLong += dropped })
	}
	return kept
}

// clip shortens a URL for a log line or an error: its first 200 bytes, then "…".
func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
