package main

import (
	"flag"
	"strings"

	"github.com/archivectl/archivectl/crawler"
)

// reachFlags are the crawl flags for scope, requisites, sitemaps and the header embargo.
type reachFlags struct {
	scope, sitemaps          *string
	include, exclude         stringList
	noRequisites, hdrEmbargo *bool
}

// registerReachFlags registers them on fs.
func registerReachFlags(fs *flag.FlagSet) *reachFlags {
	r := &reachFlags{
		scope:        fs.String("scope", "", "scope of a seed line that names none: origin, host, domain or prefix (default origin)"),
		sitemaps:     fs.String("sitemaps", "", "sitemaps read: robots (robots.txt Sitemap lines), all (and /sitemap.xml) or off (default robots)"),
		noRequisites: fs.Bool("no-requisites", false, "fetch no embedded resource (image, stylesheet, font…) outside the scope or depth"),
		hdrEmbargo:   fs.Bool("header-embargo", false, "let an Archive-Embargo response field lengthen a capture's embargo (a proposal, not the -00 draft)"),
	}
	fs.Var(&r.include, "include", "URL pattern (robots.txt syntax: /news/*, *.pdf$, https://host/path) a page must match; repeatable")
	fs.Var(&r.exclude, "exclude", "URL pattern no page nor requisite may match; repeatable")
	return r
}

// apply puts the flags that were set over the config's crawl options.
func (r *reachFlags) apply(set map[string]bool, cc *CrawlConfig) {
	if set["scope"] {
		cc.Scope = *r.scope
	}
	if set["sitemaps"] {
		cc.Sitemaps = *r.sitemaps
	}
	if set["include"] {
		cc.Include = r.include
	}
	if set["exclude"] {
		cc.Exclude = r.exclude
	}
	if set["no-requisites"] {
		cc.NoRequisites = *r.noRequisites
	}
	if set["header-embargo"] {
		cc.HeaderEmbargo = *r.hdrEmbargo
	}
}

// reachConfig copies the crawl options for scope, requisites, sitemaps and the header
// embargo into cfg and checks them.
func reachConfig(cc CrawlConfig, cfg *crawler.Config) error {
	cfg.Scope = crawler.Scope(strings.ToLower(cc.Scope))
	cfg.Sitemaps = crawler.SitemapMode(strings.ToLower(cc.Sitemaps))
	cfg.Include, cfg.Exclude = cc.Include, cc.Exclude
	cfg.NoRequisites, cfg.HeaderEmbargo = cc.NoRequisites, cc.HeaderEmbargo
	cfg.Resolve = cc.Resolve
	return cfg.Validate()
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ", ") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}
