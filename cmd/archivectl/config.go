package main

import (
	"fmt"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/crawler/browser"
	"github.com/archivectl/archivectl/crawler/offsite"
	"github.com/archivectl/archivectl/lookup"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// Config is the YAML configuration file (configs/archivectl.yaml documents every option); flags override it.
type Config struct {
	Data     string        `yaml:"data"`     // data directory: sealed/, index.db, public/
	Operator string        `yaml:"operator"` // who runs this archive, written into every warcinfo record
	Contact  string        `yaml:"contact"`  // contact URL, carried in the User-Agent and warcinfo
	Crawl    CrawlConfig   `yaml:"crawl"`
	Store    StoreConfig   `yaml:"store"`
	Release  ReleaseConfig `yaml:"release"`
	Serve    ServeConfig   `yaml:"serve"`
	Public   string        `yaml:"public"` // where the public side is shared: "" (DATA/public alone), s3://BUCKET/PREFIX or file:///DIR
	Node     string        `yaml:"node"`   // this node's name in the shared store; "" is the host name
	HandOff  HandOffConfig `yaml:"handoff"`
	// where a crawl node's sealed side is kept beyond its disk: "" (the disk alone), s3://BUCKET/PREFIX or file:///DIR
	Sealed      string            `yaml:"sealed"`
	SealedStore SealedStoreConfig `yaml:"sealed_store"`
}

// SealedStoreConfig holds the access to the sealed: store and how often it is checkpointed.
type SealedStoreConfig struct {
	Profile    string        `yaml:"profile"`    // the AWS profile whose credentials reach it; "" the AWS environment's
	Endpoint   string        `yaml:"endpoint"`   // its S3 endpoint; "" the profile's (with a profile) or the environment's
	Checkpoint time.Duration `yaml:"checkpoint"` // index.db and frontier.db are checkpointed this often, and at the end of a crawl
}

// HandOffConfig holds the hand-off between the nodes of a partitioned crawl sharing a store.
type HandOffConfig struct {
	Store    string        `yaml:"store"`    // where the batches go: "" (the public: store) or a store of the crawl nodes alone, as public: is written
	Interval time.Duration `yaml:"interval"` // hand-off batches are written and read this often
	Linger   time.Duration `yaml:"linger"`   // a node whose own work is done goes on reading them until none came for this long
}

// CrawlConfig holds the crawler's options.
type CrawlConfig struct {
	Agent                 string        `yaml:"agent"`                   // product token matched against robots.txt groups
	UserAgent             string        `yaml:"user_agent"`              // full User-Agent header; built from agent and contact when empty
	Delay                 time.Duration `yaml:"delay"`                   // minimum delay between requests to one origin
	MaxDelay              time.Duration `yaml:"max_delay"`               // Crawl-delay ceiling: origins asking for more are skipped
	Concurrency           int           `yaml:"concurrency"`             // origins fetched in parallel
	MaxPages              int           `yaml:"max_pages"`               // 0 = no limit
	MaxDepth              int           `yaml:"max_depth"`               // 0 = no limit
	MaxBody               int64         `yaml:"max_body"`                // bytes of payload kept per response; beyond it WARC-Truncated: length
	Timeout               time.Duration `yaml:"timeout"`                 // whole-response timeout
	Retries               int           `yaml:"retries"`                 // retries for network errors
	RobotsUnreachableDays int           `yaml:"robots_unreachable_days"` // 0 = keep disallowing an unreachable origin without a cached robots.txt
	MaxRetryAfter         time.Duration `yaml:"max_retry_after"`         // longest Retry-After honoured; an origin asking more is skipped
	RetryBackoff          time.Duration `yaml:"retry_backoff"`           // first wait after a network error, doubled at each retry
	MaxURLLength          int           `yaml:"max_url_length"`          // longest URL in bytes crawled or followed; a longer seed is an error
	MaxPathDepth          int           `yaml:"max_path_depth"`          // most path segments of a link followed; 0 = no limit
	MaxPathRepeats        int           `yaml:"max_path_repeats"`        // most times a path segment may follow itself in a link followed; 0 = no limit

	Scope         string            `yaml:"scope"`          // origin, host, domain or prefix: the scope of a seed line that names none
	Include       []string          `yaml:"include"`        // URL patterns (robots.txt syntax) of which a page must match one; none: every page
	Exclude       []string          `yaml:"exclude"`        // URL patterns that no page nor requisite may match
	NoRequisites  bool              `yaml:"no_requisites"`  // fetch no embedded resource outside the scope or the depth
	Sitemaps      string            `yaml:"sitemaps"`       // all (the default), robots or off
	HeaderEmbargo bool              `yaml:"header_embargo"` // let an Archive-Embargo response field lengthen an embargo (a proposal)
	Resolve       map[string]string `yaml:"resolve"`        // host name → IP address dialled without a lookup
	Partition     string            `yaml:"partition"`      // K/N: crawl only the origins of partition K of N; "" all

	Browser BrowserConfig `yaml:"browser"` // browser-assisted capture (crawl --browser)
}

// BrowserConfig holds the options of browser-assisted capture: HTML pages rendered in headless
// Chromium, every request it makes fetched by the crawler under that origin's own policy.
type BrowserConfig struct {
	Enabled  bool          `yaml:"enabled"`  // render HTML pages (flag --browser)
	Chromium string        `yaml:"chromium"` // the chromium executable; "" finds chromium on PATH
	Tabs     int           `yaml:"tabs"`     // pages rendered at once
	Wait     time.Duration `yaml:"wait"`     // longest time per page: network idle or this
	Scroll   int           `yaml:"scroll"`   // viewport heights scrolled for lazy loads; negative: none
	Snapshot string        `yaml:"snapshot"` // off, dom, screenshot or both: sealed as resource records beside the page
}

// StoreConfig holds the sealed repository's options.
type StoreConfig struct {
	MaxFileSize int64  `yaml:"max_file_size"` // WARC rotation size in bytes
	Digest      string `yaml:"digest"`        // sha256 or sha1
}

// ReleaseConfig holds the releaser's options.
type ReleaseConfig struct {
	ShardSize int64  `yaml:"shard_size"` // public shard rotation size in bytes
	Schedule  string `yaml:"schedule"`   // cron spec for serve --schedule
}

// ServeConfig holds the lookup service's options.
type ServeConfig struct {
	Listen       string `yaml:"listen"`
	Check        string `yaml:"check"`         // the publisher self-check at /check: on, paste (no fetches) or off
	CheckPrivate bool   `yaml:"check_private"` // the self-check may fetch robots.txt from loopback and private addresses
	ReplayURL    string `yaml:"replay_url"`    // the ReplayWeb.page instance "Open as page" uses; "off": no such links
}

// version is archivectl's version, sent in the User-Agent.
const version = "0.1"

// The command's own defaults; the packages own theirs (crawler.Defaults, store, release).
const (
	defaultData    = "./archive-data"
	defaultContact = "https://github.com/archivectl/archivectl"
	defaultListen  = "127.0.0.1:8080"
)

// defaultUserAgent is the User-Agent header for a product token: RFC 9309 §2.2.1 asks that it
// carry the token and say what the crawler is for, here with the operator's contact URL.
func defaultUserAgent(token, contact string) string {
	return fmt.Sprintf("Mozilla/5.0 (compatible; %s/%s; +%s)", token, version, contact)
}

// defaultConfig is what archivectl uses with no config file: the crawl's keys hold the
// crawler's defaults (crawler.Defaults).
func defaultConfig() Config {
	c := Config{
		Data:        defaultData,
		Contact:     defaultContact,
		Store:       StoreConfig{MaxFileSize: store.DefaultMaxFileSize, Digest: store.DefaultDigest},
		Release:     ReleaseConfig{ShardSize: release.DefaultShardSize},
		Serve:       ServeConfig{Listen: defaultListen, Check: "on", ReplayURL: lookup.DefaultReplayURL},
		HandOff:     HandOffConfig{Interval: crawler.DefaultHandOffInterval, Linger: crawler.DefaultHandOffLinger},
		SealedStore: SealedStoreConfig{Checkpoint: offsite.DefaultInterval},
	}
	d := crawler.Defaults()
	for _, s := range crawlSettings(&c.Crawl, &d) {
		s.fromCrawler()
	}
	return c
}

// crawlerConfig is the crawl that cfg describes, seeds aside; crawl and demo both start from it.
func crawlerConfig(cfg Config) crawler.Config {
	c := crawler.Config{DataDir: cfg.Data}
	for _, s := range crawlSettings(&cfg.Crawl, &c) {
		s.toCrawler()
	}
	if c.UserAgent == "" {
		c.UserAgent = defaultUserAgent(c.Agent, cfg.Contact)
	}
	return c
}

// crawlSettings pairs every key of the configuration's crawl section (cc) with the field of the
// crawl (c) it sets: the one place the two meet, read one way for the defaults and the other way
// for a crawl. Scope, sitemaps and partition are parsed on the way in (the configuration check
// has refused a bad value before; an unparsed scope or mode is kept for the crawler to refuse).
func crawlSettings(cc *CrawlConfig, c *crawler.Config) []setting {
	return []setting{
		same(&cc.Agent, &c.Agent),
		same(&cc.UserAgent, &c.UserAgent),
		same(&cc.Delay, &c.Delay),
		same(&cc.MaxDelay, &c.MaxDelay),
		same(&cc.Concurrency, &c.Concurrency),
		same(&cc.MaxPages, &c.MaxPages),
		same(&cc.MaxDepth, &c.MaxDepth),
		same(&cc.MaxBody, &c.MaxBody),
		same(&cc.Timeout, &c.Timeout),
		same(&cc.Retries, &c.Retries),
		same(&cc.RobotsUnreachableDays, &c.RobotsUnreachableDays),
		same(&cc.MaxRetryAfter, &c.MaxRetryAfter),
		same(&cc.RetryBackoff, &c.RetryBackoff),
		same(&cc.MaxURLLength, &c.MaxURLLength),
		same(&cc.MaxPathDepth, &c.MaxPathDepth),
		same(&cc.MaxPathRepeats, &c.MaxPathRepeats),
		converted(&cc.Scope, &c.Scope, func(s string) crawler.Scope {
			if sc, err := crawler.ParseScope(s); err == nil {
				return sc
			}
			return crawler.Scope(s)
		}, func(sc crawler.Scope) string { return string(sc) }),
		same(&cc.Include, &c.Include),
		same(&cc.Exclude, &c.Exclude),
		same(&cc.NoRequisites, &c.NoRequisites),
		converted(&cc.Sitemaps, &c.Sitemaps, func(s string) crawler.SitemapMode {
			if m, err := crawler.ParseSitemapMode(s); err == nil {
				return m
			}
			return crawler.SitemapMode(s)
		}, func(m crawler.SitemapMode) string { return string(m) }),
		same(&cc.HeaderEmbargo, &c.HeaderEmbargo),
		same(&cc.Resolve, &c.Resolve),
		converted(&cc.Partition, &c.Partition, func(s string) crawler.Partition {
			p, _ := crawler.ParsePartition(s) // "" is all
			return p
		}, func(p crawler.Partition) string {
			if p.N == 0 {
				return "" // all, as the key's empty value says
			}
			return p.String()
		}),
		converted(&cc.Browser, &c.Browser, func(b BrowserConfig) *browser.Options {
			if !b.Enabled {
				return nil
			}
			snap, _ := browser.ParseSnapshot(b.Snapshot) // checked by check
			return &browser.Options{Chromium: b.Chromium, Tabs: b.Tabs, Wait: b.Wait, Scroll: b.Scroll, Snapshot: snap}
		}, func(o *browser.Options) BrowserConfig {
			if o == nil { // no browser: the keys show its defaults
				d := browser.Defaults()
				return BrowserConfig{Tabs: d.Tabs, Wait: d.Wait, Scroll: d.Scroll, Snapshot: d.Snapshot.String()}
			}
			return BrowserConfig{Enabled: true, Chromium: o.Chromium, Tabs: o.Tabs, Wait: o.Wait, Scroll: o.Scroll, Snapshot: o.Snapshot.String()}
		}),
	}
}

// setting is one configuration key's copy into the crawl, and back.
type setting struct{ toCrawler, fromCrawler func() }

// same is the setting of a key whose value is the crawl's as it is.
func same[T any](key, field *T) setting {
	return setting{func() { *field = *key }, func() { *key = *field }}
}

// converted is the setting of a key whose value the crawl holds in another type.
func converted[K, F any](key *K, field *F, in func(K) F, out func(F) K) setting {
	return setting{func() { *field = in(*key) }, func() { *key = out(*field) }}
}

// storeOptions are the sealed repository's options that cfg describes.
func storeOptions(cfg Config) store.Options {
	return store.Options{
		Operator:    cfg.Operator,
		Contact:     cfg.Contact,
		MaxFileSize: cfg.Store.MaxFileSize,
		Digest:      cfg.Store.Digest,
	}
}

// releaseOptions are the releaser's options that cfg describes.
func releaseOptions(cfg Config) release.Options {
	return release.Options{ShardSize: cfg.Release.ShardSize}
}
