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

// admit drops the items that are not followed, before they are claimed or persisted: URLs
// longer than the limit (docs/rules.md#d25) and, but for requisites, paths that look like a
// crawler trap (checkPath, docs/rules.md#d26); found is the URL they were found at. What it drops
// is logged once for found per rule and counted, and never stops the crawl: found itself is
// sealed whatever its links are.
func (c *Crawl) admit(found string, items []item) []item {
	var drops [3]struct { // [0]: too long; [trapDepth], [trapRepeats]: the trap rules
		n     int
		first string
		err   error
	}
	note := func(i int, u string, err error) {
		if drops[i].n == 0 {
			drops[i].first, drops[i].err = u, err
		}
		drops[i].n++
	}
	kept := items[:0]
	for _, it := range items {
		if err := checkURLLength(it.URL, c.cfg.MaxURLLength); err != nil {
			note(0, it.URL, err)
			continue
		}
		if it.Kind != kindRequisite { // a requisite is bounded by its hops (maxRequisiteHops)
			if rule, err := checkPath(it.URL, c.cfg.MaxPathDepth, c.cfg.MaxPathRepeats); err != nil {
				note(int(rule), it.URL, err)
				continue
			}
		}
		kept = append(kept, it)
	}
	clear(items[len(kept):])
	if d := drops[0]; d.n > 0 {
		c.log.Warn("URLs longer than the limit: not followed", "found_at", clip(found), "dropped", d.n,
			"limit", c.cfg.MaxURLLength, "first", clip(d.first), "first_bytes", len(d.first))
	}
	if d := drops[trapDepth]; d.n > 0 {
		c.log.Warn("crawler trap: URLs with more path segments than the limit not followed", "found_at", clip(found), "dropped", d.n,
			"limit", c.cfg.MaxPathDepth, "first", clip(d.first), "reason", d.err)
	}
	if d := drops[trapRepeats]; d.n > 0 {
		c.log.Warn("crawler trap: URLs repeating a path segment not followed", "found_at", clip(found), "dropped", d.n,
			"limit", c.cfg.MaxPathRepeats, "first", clip(d.first), "reason", d.err)
	}
	if drops[0].n+drops[trapDepth].n+drops[trapRepeats].n > 0 {
		c.stats.add(func(s *Summary) {
			s.TooLong += drops[0].n
			s.TooDeep += drops[trapDepth].n
			s.Repeating += drops[trapRepeats].n
		})
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
