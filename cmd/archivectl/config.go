package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"time"

	"go.yaml.in/yaml/v3"
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

	Scope         string            `yaml:"scope"`          // origin, host, domain or prefix: the scope of a seed line that names none
	Include       []string          `yaml:"include"`        // URL patterns (robots.txt syntax) of which a page must match one; none: every page
	Exclude       []string          `yaml:"exclude"`        // URL patterns that no page nor requisite may match
	NoRequisites  bool              `yaml:"no_requisites"`  // fetch no embedded resource outside the scope or the depth
	Sitemaps      string            `yaml:"sitemaps"`       // robots, all or off
	HeaderEmbargo bool              `yaml:"header_embargo"` // let an Archive-Embargo response field lengthen an embargo (a proposal)
	Resolve       map[string]string `yaml:"resolve"`        // host name → IP address dialled without a lookup
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
	Listen string `yaml:"listen"`
}

// version is archivectl's version, sent in the User-Agent.
const version = "0.1"

// defaultUserAgent is the User-Agent header for a product token: RFC 9309 §2.2.1 asks that it
// carry the token and say what the crawler is for, here with the operator's contact URL.
func defaultUserAgent(token, contact string) string {
	return fmt.Sprintf("Mozilla/5.0 (compatible; %s/%s; +%s)", token, version, contact)
}

// defaultConfig is what archivectl uses with no config file.
func defaultConfig() Config {
	return Config{
		Data:    "./archive-data",
		Contact: "https://github.com/archivectl/archivectl",
		Crawl: CrawlConfig{
			Agent:       "archivectl",
			Delay:       time.Second,
			MaxDelay:    30 * time.Second,
			Concurrency: 16,
			MaxBody:     10 << 20,
			Timeout:     30 * time.Second,
			Retries:     2,

			MaxRetryAfter: 5 * time.Minute,
			RetryBackoff:  time.Second,
		},
		Store:   StoreConfig{MaxFileSize: 1 << 30, Digest: "sha256"},
		Release: ReleaseConfig{ShardSize: 1 << 30},
		Serve:   ServeConfig{Listen: "127.0.0.1:8080"},
	}
}

// loadConfig reads the YAML file at path over the defaults; an empty path means defaults only.
func loadConfig(path string) (Config, error) {
	c := defaultConfig()
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, fmt.Errorf("config %s does not exist", path)
		}
		return c, fmt.Errorf("config: %w", err)
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// commonFlags registers --data and --config on fs; call load after fs.Parse.
type commonFlags struct {
	data, config string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.data, "data", "", "data directory (default ./archive-data)")
	fs.StringVar(&c.config, "config", "", "YAML configuration file")
}

// load returns the configuration with --data applied over it.
func (c *commonFlags) load() (Config, error) {
	cfg, err := loadConfig(c.config)
	if err != nil {
		return cfg, err
	}
	if c.data != "" {
		cfg.Data = c.data
	}
	return cfg, nil
}
