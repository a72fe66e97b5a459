package crawler

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
)

// SitemapMode says which sitemaps a crawl reads.
type SitemapMode string

// The sitemap modes.
const (
	SitemapsRobots SitemapMode = "robots" // those named by Sitemap lines of the robots.txt of origins in the scope
	SitemapsAll    SitemapMode = "all"    // those, and /sitemap.xml of every origin in the scope
	SitemapsOff    SitemapMode = "off"    // none
)

// DefaultSitemaps is the sitemap mode of a crawl that sets none.
const DefaultSitemaps = SitemapsAll

// ParseSitemapMode reads a sitemap mode; "" is DefaultSitemaps.
func ParseSitemapMode(s string) (SitemapMode, error) {
	switch m := SitemapMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return DefaultSitemaps, nil
	case SitemapsRobots, SitemapsAll, SitemapsOff:
		return m, nil
	}
	return "", fmt.Errorf("unknown sitemaps mode %q: use robots, all or off", s)
}

// Validate checks the settings a person writes: the scope, the sitemap mode, the include and
// exclude patterns, the URL length and path limits and the resolve table. Every problem is listed.
func (cfg Config) Validate() error {
	var errs []error
	if _, err := ParseScope(string(cfg.Scope)); err != nil {
		errs = append(errs, err)
	}
	if _, err := ParseSitemapMode(string(cfg.Sitemaps)); err != nil {
		errs = append(errs, err)
	}
	for _, s := range cfg.ScopedSeeds {
		if _, err := ParseScope(string(s.Scope)); err != nil || s.URL == nil {
			errs = append(errs, fmt.Errorf("seed %v: invalid scope %q", s.URL, s.Scope))
		}
	}
	for _, p := range slices.Concat(cfg.Include, cfg.Exclude) {
		if _, err := parseURLPattern(p); err != nil {
			errs = append(errs, err)
		}
	}
	if cfg.MaxURLLength < 0 || cfg.MaxURLLength > MaxURLLengthCeiling {
		errs = append(errs, fmt.Errorf("max URL length %d: give 1 to %d bytes (0: the default, %d)", cfg.MaxURLLength, MaxURLLengthCeiling, DefaultMaxURLLength))
	}
	if cfg.MaxPathDepth < 0 {
		errs = append(errs, fmt.Errorf("max path depth %d: give 0 (no limit) or more segments", cfg.MaxPathDepth))
	}
	if cfg.MaxPathRepeats < 0 {
		errs = append(errs, fmt.Errorf("max path repeats %d: give 0 (no limit) or more", cfg.MaxPathRepeats))
	}
	for host, ip := range cfg.Resolve {
		if host == "" || net.ParseIP(ip) == nil {
			errs = append(errs, fmt.Errorf("resolve %q: %q is not an IP address", host, ip))
		}
	}
	if err := validHandOff(cfg); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// allSeeds is Seeds (with the default scope) then ScopedSeeds.
func (c *Crawl) allSeeds() []Seed {
	out := make([]Seed, 0, len(c.cfg.Seeds)+len(c.cfg.ScopedSeeds))
	for _, u := range c.cfg.Seeds {
		out = append(out, Seed{URL: u})
	}
	return append(out, c.cfg.ScopedSeeds...)
}

// frontierKey lists what identifies a crawl for resuming it: the seed URLs, and each scope
// and pattern that differs from the defaults (so that a crawl with none keeps its old key).
func (c *Crawl) frontierKey(seeds []Seed) []string {
	var key []string
	for _, s := range seeds {
		sc := s.Scope
		if sc == "" {
			sc = c.cfg.Scope
		}
		if sc == ScopeOrigin {
			key = append(key, s.URL.String())
		} else {
			key = append(key, s.URL.String()+" scope="+string(sc))
		}
	}
	for _, p := range c.cfg.Include {
		key = append(key, "include="+p)
	}
	for _, p := range c.cfg.Exclude {
		key = append(key, "exclude="+p)
	}
	return key
}
