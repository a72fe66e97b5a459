package crawler

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Crawler trap rules (docs/rules.md#d26): a path of too many segments, or one repeating a
// segment, is what a calendar without end, a relative link resolved against itself or a
// session id in the path produces. The defaults are Heritrix's (TooManyPathSegmentsDecideRule,
// PathologicalPathDecideRule); 0 turns a rule off.
const (
	DefaultMaxPathDepth   = 20 // segments in a URL's path
	DefaultMaxPathRepeats = 2  // times one segment may follow itself
)

// ErrCrawlerTrap is a link whose path looks like a crawler trap: it is not followed.
var ErrCrawlerTrap = errors.New("path looks like a crawler trap")

// trapRule names which trap rule a path breaks.
type trapRule int

const (
	trapNone    trapRule = iota
	trapDepth            // more segments than MaxPathDepth
	trapRepeats          // one segment more than MaxPathRepeats times in a row
)

// checkPath is the one trap rule: the canonical URL u's path is refused when it has more than
// maxDepth segments (the '/' characters of the path; the query does not count) or when one
// segment, the empty one included, stands more than maxRepeats times in a row. 0 turns a
// limit off.
func checkPath(u string, maxDepth, maxRepeats int) (trapRule, error) {
	if maxDepth <= 0 && maxRepeats <= 0 {
		return trapNone, nil
	}
	p, err := url.Parse(u)
	if err != nil {
		return trapNone, nil // not a URL the crawler fetches: refused elsewhere
	}
	path := p.EscapedPath()
	if n := strings.Count(path, "/"); maxDepth > 0 && n > maxDepth {
		return trapDepth, fmt.Errorf("%w: %d path segments, the limit is %d (crawl.max_path_depth)", ErrCrawlerTrap, n, maxDepth)
	}
	if maxRepeats <= 0 {
		return trapNone, nil
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	run := 1
	for i := 1; i < len(segs); i++ {
		if segs[i] != segs[i-1] {
			run = 1
			continue
		}
		if run++; run > maxRepeats {
			return trapRepeats, fmt.Errorf("%w: segment %q %d times in a row, the limit is %d (crawl.max_path_repeats)", ErrCrawlerTrap, clip(segs[i]), run, maxRepeats)
		}
	}
	return trapNone, nil
}
