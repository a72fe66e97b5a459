package main

import (
	"maps"
	"net"
	"slices"

	"github.com/archivectl/archivectl/crawler"
)

// reachFlags registers crawl's flags for scope, requisites, sitemaps and the header embargo,
// each defaulting to its key of the configuration.
func reachFlags(fs *flagSet, cc *CrawlConfig) {
	fs.stringKey(&cc.Scope, "scope", "crawl.scope", "scope of a seed line that names none: origin, host, domain or prefix")
	fs.stringKey(&cc.Sitemaps, "sitemaps", "crawl.sitemaps", "sitemaps read: all (robots.txt Sitemap lines and /sitemap.xml, the default), robots (the Sitemap lines only) or off")
	fs.boolKey(&cc.NoRequisites, "no-requisites", "crawl.no_requisites", "fetch no embedded resource (image, stylesheet, font…) outside the scope or depth")
	fs.boolKey(&cc.HeaderEmbargo, "header-embargo", "crawl.header_embargo", "let an Archive-Embargo response field lengthen a capture's embargo (a proposal, not the -00 draft)")
	fs.listKey(&cc.Include, "include", "crawl.include", "URL pattern (robots.txt syntax: /news/*, *.pdf$, https://host/path) a page must match; repeatable, replaces crawl.include")
	fs.listKey(&cc.Exclude, "exclude", "crawl.exclude", "URL pattern no page nor requisite may match; repeatable, replaces crawl.exclude")
}

// reachProblems reports, through bad, each of those options that the crawler would refuse.
func reachProblems(cc CrawlConfig, bad func(key string, value any, reason string)) {
	if _, err := crawler.ParseScope(cc.Scope); err != nil {
		bad("crawl.scope", cc.Scope, "use origin, host, domain or prefix")
	}
	for _, l := range []struct {
		key      string
		patterns []string
	}{{"crawl.include", cc.Include}, {"crawl.exclude", cc.Exclude}} {
		for _, p := range l.patterns {
			if err := (crawler.Config{Include: []string{p}}).Validate(); err != nil {
				bad(l.key, p, reasonOf(err))
			}
		}
	}
	if _, err := crawler.ParseSitemapMode(cc.Sitemaps); err != nil {
		bad("crawl.sitemaps", cc.Sitemaps, "use robots, all or off")
	}
	for _, host := range slices.Sorted(maps.Keys(cc.Resolve)) {
		switch ip := cc.Resolve[host]; {
		case host == "":
			bad("crawl.resolve", host, "an empty host name")
		case net.ParseIP(ip) == nil:
			bad("crawl.resolve", host+": "+ip, "not an IP address")
		}
	}
}
