package crawler

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/archivectl/archivectl/crawler/extract"
)

// SeedError lists every invalid line of a seeds file.
type SeedError struct {
	Lines []BadSeed
}

// BadSeed is one invalid line of a seeds file and why it is invalid.
type BadSeed struct {
	Line   int
	Text   string
	Reason string
}

// Error lists the bad lines, one per line.
func (e *SeedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d invalid seed line(s); fix them and run again:", len(e.Lines))
	for _, l := range e.Lines {
		fmt.Fprintf(&b, "\n  line %d: %q: %s", l.Line, clip(l.Text), l.Reason)
	}
	return b.String()
}

// maxSeedLine bounds one line of a seeds file.
const maxSeedLine = 64 << 10

// Seed is one line of a seeds file: a canonical URL and the scope its crawl keeps to.
type Seed struct {
	URL   *url.URL
	Scope Scope // "" when the line names none: the crawl's default scope applies
}

// ParseSeeds is ReadSeeds without the seeds' own scopes: their URLs only.
func ParseSeeds(r io.Reader) ([]*url.URL, error) {
	seeds, err := ReadSeeds(r)
	if err != nil {
		return nil, err
	}
	urls := make([]*url.URL, len(seeds))
	for i, s := range seeds {
		urls[i] = s.URL
	}
	return urls, nil
}

// ReadSeeds reads one absolute http(s) URL a line, optionally followed by "scope=NAME"
// (origin, host, domain or prefix); blank lines and lines starting with '#' are ignored, and so
// is a UTF-8 byte order mark before the first line. Any invalid line makes the whole file
// invalid: the error is a *SeedError naming each. A URL longer than DefaultMaxURLLength is
// invalid; ReadSeedsMax takes another limit.
func ReadSeeds(r io.Reader) ([]Seed, error) { return ReadSeedsMax(r, DefaultMaxURLLength) }

// ReadSeedsMax is ReadSeeds with a URL length limit of maxURLLength bytes (the crawl's
// Config.MaxURLLength; 0 is DefaultMaxURLLength), counted on the canonical URL: a longer seed is
// an invalid line, naming its length and the limit (docs/rules.md#d25).
func ReadSeedsMax(r io.Reader, maxURLLength int) ([]Seed, error) {
	if maxURLLength == 0 {
		maxURLLength = DefaultMaxURLLength
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxSeedLine)
	var (
		seeds []Seed
		bad   []BadSeed
		n     int
	)
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF") // a byte order mark some editors write
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		u, reason := parseSeed(line, maxURLLength)
		if reason != "" {
			bad = append(bad, BadSeed{Line: n, Text: line, Reason: reason})
			continue
		}
		seeds = append(seeds, u)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("seeds: line %d: %w", n+1, err)
	}
	if len(bad) > 0 {
		return nil, &SeedError{Lines: bad}
	}
	return seeds, nil
}

// parseSeed returns the seed of one line, or why it is not a seed.
func parseSeed(line string, maxURLLength int) (Seed, string) {
	fields := strings.Fields(line)
	u, reason := parseSeedURL(fields[0])
	if reason != "" {
		return Seed{}, reason
	}
	if err := checkURLLength(u.String(), maxURLLength); err != nil {
		return Seed{}, err.Error()
	}
	sd := Seed{URL: u}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k != "scope" || sd.Scope != "" {
			return Seed{}, "a seed line holds one URL, then at most one scope=origin|host|domain|prefix"
		}
		sc, err := ParseScope(v)
		if err != nil || v == "" {
			return Seed{}, "scope=" + v + ": use origin, host, domain or prefix"
		}
		sd.Scope = sc
	}
	return sd, ""
}

// parseSeedURL returns the canonical form of a seed URL, or why it is not one.
func parseSeedURL(s string) (*url.URL, string) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, "not a URL"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "not an absolute http or https URL"
	}
	if u.Hostname() == "" || u.Opaque != "" {
		return nil, "no host"
	}
	if u.User != nil {
		return nil, "user information in a URL is not crawled"
	}
	c, ok := extract.Canonical(u)
	if !ok {
		return nil, "invalid host or port"
	}
	return c, ""
}
