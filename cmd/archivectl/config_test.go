package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/crawler/browser"
	"github.com/archivectl/archivectl/internal/strictyaml"
)

// TestShippedConfigIsTheDefaults: configs/archivectl.yaml shows every option with its default;
// read strictly it gives exactly defaultConfig, and it sets every key there is.
func TestShippedConfigIsTheDefaults(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../configs/archivectl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := defaultConfig()
	lines, err := strictyaml.Decode(b, &c)
	if err != nil {
		t.Fatalf("configs/archivectl.yaml: %v", err)
	}
	if want := defaultConfig(); !reflect.DeepEqual(c, want) {
		t.Errorf("configs/archivectl.yaml reads as\n%+v\nthe defaults are\n%+v", c, want)
	}
	for _, key := range configKeys(reflect.TypeFor[Config](), "") {
		if lines[key] == 0 {
			t.Errorf("configs/archivectl.yaml does not show %s", key)
		}
	}
}

// configKeys lists every leaf key of the config struct t.
func configKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if f := t.Field(i).Type; f.Kind() == reflect.Struct {
			keys = append(keys, configKeys(f, prefix+name+".")...)
		} else {
			keys = append(keys, prefix+name)
		}
	}
	return keys
}

// TestCrawlerConfigCarriesEverySetting: every crawl setting reaches the crawler, and the
// defaults are the crawler's own.
func TestCrawlerConfigCarriesEverySetting(t *testing.T) {
	t.Parallel()
	cfg := defaultConfig()
	cfg.Data, cfg.Contact = "d", "https://example.com/contact"
	cfg.Crawl = CrawlConfig{Agent: "bot", UserAgent: "Bot/2", Delay: 1, MaxDelay: 2, Concurrency: 3, MaxPages: 4, MaxDepth: 5,
		MaxBody: 6, Timeout: 7, Retries: 8, RobotsUnreachableDays: 9, MaxRetryAfter: 10, RetryBackoff: 11, MaxURLLength: 12, MaxPathDepth: 13, MaxPathRepeats: 14,
		Scope: "Domain", Include: []string{"/news/"}, Exclude: []string{"*.pdf$"}, NoRequisites: true, Sitemaps: "ALL",
		HeaderEmbargo: true, Resolve: map[string]string{"a.example": "127.0.0.1"}, Partition: "2/5",
		Browser: BrowserConfig{Enabled: true, Chromium: "/usr/bin/chromium", Tabs: 15, Wait: 16, Scroll: 17}}
	got := crawlerConfig(cfg)
	want := crawler.Config{DataDir: "d", Agent: "bot", UserAgent: "Bot/2", Delay: 1, MaxDelay: 2, Concurrency: 3, MaxPages: 4,
		MaxDepth: 5, MaxBody: 6, Timeout: 7, Retries: 8, RobotsUnreachableDays: 9, MaxRetryAfter: 10, RetryBackoff: 11, MaxURLLength: 12, MaxPathDepth: 13, MaxPathRepeats: 14,
		Scope: crawler.ScopeDomain, Include: []string{"/news/"}, Exclude: []string{"*.pdf$"}, NoRequisites: true, Sitemaps: crawler.SitemapsAll,
		HeaderEmbargo: true, Resolve: map[string]string{"a.example": "127.0.0.1"}, Partition: crawler.Partition{K: 2, N: 5},
		Browser: &browser.Options{Chromium: "/usr/bin/chromium", Tabs: 15, Wait: 16, Scroll: 17}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("crawlerConfig = %+v\nwant %+v", got, want)
	}
	if n := reflect.TypeFor[CrawlConfig]().NumField(); n != 25 {
		t.Errorf("CrawlConfig has %d fields: give crawlSettings and this test the new ones", n)
	}

	cfg.Crawl.UserAgent = ""
	if ua := crawlerConfig(cfg).UserAgent; ua != "Mozilla/5.0 (compatible; bot/0.1; +https://example.com/contact)" {
		t.Errorf("User-Agent built from agent and contact = %q", ua)
	}
	d := crawler.Defaults()
	d.UserAgent = defaultUserAgent(d.Agent, defaultContact)
	d.DataDir, d.LockTimeout = defaultData, 0
	if got := crawlerConfig(defaultConfig()); !reflect.DeepEqual(got, d) {
		t.Errorf("the default crawl is\n%+v\nthe crawler's defaults are\n%+v", got, d)
	}
}

// TestConfigStrict: every mistake in a config file is exit 2 with one line naming the key and its line.
func TestConfigStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		want       string
	}{
		{"unknown key", "crawl:\n  delai: 1s\n", "line 2: unknown key crawl.delai (did you mean crawl.delay?)"},
		{"unknown key in flow style", "crawl: {delai: 1s}\n", "line 1: unknown key crawl.delai"},
		{"unknown section", "# comment\nstorage:\n  digest: sha1\n", "line 2: unknown key storage (did you mean store?)"},
		{"unknown key far from any", "crawl:\n  speed: 3\n", "line 2: unknown key crawl.speed; crawl takes agent, user_agent, delay"},
		{"wrong type", "crawl:\n  delay: fast\n", `line 2: crawl.delay: "fast" is not a duration`},
		{"number for a duration", "crawl:\n  timeout: 30\n", `line 2: crawl.timeout: "30" is not a duration`},
		{"text for a number", "crawl:\n  max_pages: many\n", `line 2: crawl.max_pages: "many" is not a whole number`},
		{"list for a number", "crawl:\n  concurrency: [1, 2]\n", "line 2: crawl.concurrency takes a whole number, not a list"},
		{"scalar for a section", "crawl: fast\n", `line 1: crawl takes a mapping of keys, not "fast"`},
		{"not a mapping", "- data\n", "line 1: the config takes a mapping of keys, not a list"},
		{"key set twice", "data: a\noperator: me\ndata: b\n", "line 3: data is set twice (first at line 1)"},
		{"second document", "data: a\n---\ndata: b\n", "line 2: a second YAML document"},
		{"syntax", "crawl:\n  delay: 1s\n delay: 2s\n", "is not valid YAML: yaml: line 2: did not find expected key"},
		{"negative delay", "crawl:\n  delay: -1s\n", "line 2: invalid crawl.delay -1s: cannot be negative"},
		{"bad agent", "crawl:\n  agent: Bot/1\n", `line 2: invalid crawl.agent "Bot/1": not a product token`},
		{"text for a list", "crawl:\n  include: /news/\n", `line 2: crawl.include takes a list of strings, not "/news/"`},
		{"mapping in a list", "crawl:\n  exclude:\n    - {a: b}\n", "line 3: crawl.exclude item takes a string, not a mapping"},
		{"empty list item", "crawl:\n  include:\n    - /a/\n    -\n", "line 4: crawl.include item takes a string, not nothing"},
		{"text for a switch", "crawl:\n  no_requisites: maybe\n", `line 2: crawl.no_requisites: "maybe" is not true or false`},
		{"list for the resolve table", "crawl:\n  resolve: [a.test]\n", "line 2: crawl.resolve takes a mapping of strings to strings, not a list"},
		{"host resolved twice", "crawl:\n  resolve:\n    a.test: 127.0.0.1\n    a.test: 127.0.0.2\n", "line 4: crawl.resolve sets a.test twice (first at line 3)"},
		{"resolve to nothing", "crawl:\n  resolve:\n    a.test:\n", "line 3: crawl.resolve.a.test takes a string, not nothing"},
		{"bad scope", "crawl:\n  scope: planet\n", `line 2: invalid crawl.scope "planet": use origin, host, domain or prefix`},
		{"bad pattern", "crawl:\n  include: [/ok/]\n  exclude: [news]\n", `line 3: invalid crawl.exclude "news": start it with / (any origin) or http(s)://host/`},
		{"bad resolve address", "crawl:\n  resolve: {a.test: localhost}\n", `line 2: invalid crawl.resolve "a.test: localhost": not an IP address`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "archivectl.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb strings.Builder
			code := run(context.Background(), []string{"verify", "--config", path, "--data", t.TempDir()}, nil, &out, &errb)
			want := "archivectl verify: config " + path + " " + tc.want
			if code != 2 || !strings.HasPrefix(errb.String(), want) || strings.Count(errb.String(), "\n") != 1 || out.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", code, out.String(), errb.String(), want)
			}
		})
	}
}

// TestReachSettings: the crawl's reach keys read from a file, in any case and with lists and a
// table, and the flags over them: a list flag replaces the file's list, a switch can be turned off.
func TestReachSettings(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "archivectl.yaml")
	y := "crawl:\n  scope: Domain\n  include: [/news/, 'https://a.example/x*']\n  exclude:\n    - '*.pdf$'\n" +
		"  no_requisites: true\n  sitemaps: ALL\n  header_embargo: yes\n  resolve:\n    a.example: 127.0.0.1\n"
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile := crawlerConfig(defaultConfig())
	fromFile.Scope, fromFile.Include, fromFile.Exclude = crawler.ScopeDomain, []string{"/news/", "https://a.example/x*"}, []string{"*.pdf$"}
	fromFile.NoRequisites, fromFile.Sitemaps, fromFile.HeaderEmbargo = true, crawler.SitemapsAll, true
	fromFile.Resolve = map[string]string{"a.example": "127.0.0.1"}
	tests := []struct {
		name string
		args []string
		want func(c *crawler.Config)
	}{
		{"the file", nil, func(*crawler.Config) {}},
		{"flags over it", []string{"--scope", "prefix", "--include", "/a/", "--include", "/b/", "--no-requisites=false", "--sitemaps", "off", "--header-embargo=false"},
			func(c *crawler.Config) {
				c.Scope, c.Include, c.NoRequisites, c.Sitemaps, c.HeaderEmbargo = crawler.ScopePrefix, []string{"/a/", "/b/"}, false, crawler.SitemapsOff, false
			}},
		{"exclude alone", []string{"--exclude", "/tmp/"}, func(c *crawler.Config) { c.Exclude = []string{"/tmp/"} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var errb strings.Builder
			cfg, _, code, ok := cli{name: "crawl", config: true, flags: func(fs *flagSet, c *Config) { reachFlags(fs, &c.Crawl) }}.
				parse(append([]string{"--config", path}, tc.args...), &errb, &errb)
			if !ok {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			want := fromFile
			want.Include, want.Exclude = slices.Clone(want.Include), slices.Clone(want.Exclude)
			tc.want(&want)
			if got := crawlerConfig(cfg); !reflect.DeepEqual(got, want) {
				t.Errorf("reach settings\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestConfigNullKeepsDefault: "key:" with no value, and an empty file, keep the defaults.
func TestConfigNullKeepsDefault(t *testing.T) {
	t.Parallel()
	for _, y := range []string{"", "# nothing\n", "crawl:\n", "crawl:\n  delay:\n  agent: ~\n"} {
		c := defaultConfig()
		if _, err := strictyaml.Decode([]byte(y), &c); err != nil || !reflect.DeepEqual(c, defaultConfig()) {
			t.Errorf("%q: %v, config %+v", y, err, c)
		}
	}
}

func TestParseArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		pos  []string
		v    bool
	}{
		{[]string{"a", "-v", "b"}, []string{"a", "b"}, true},
		{[]string{"-v", "--", "-v", "b"}, []string{"-v", "b"}, true},
		{[]string{"a", "--", "-v"}, []string{"a", "-v"}, false},
		{[]string{"--", "--"}, []string{"--"}, false},
		{[]string{"a", "-v", "--"}, []string{"a"}, true},
		{nil, nil, false},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		v := fs.Bool("v", false, "")
		pos, err := parseArgs(fs, tc.args)
		if err != nil || !slices.Equal(pos, tc.pos) || *v != tc.v {
			t.Errorf("%q: positional %q, -v %v, err %v; want %q, %v", tc.args, pos, *v, err, tc.pos, tc.v)
		}
	}
}

// TestCrawlHonoursDoubleDash: after "--" even a flag-like argument is positional, in crawl as in robots.
func TestCrawlHonoursDoubleDash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seeds, []byte("http://127.0.0.1:1/\n"), 0o644)
	var out, errb strings.Builder
	code := runCrawl(context.Background(), []string{"--data", filepath.Join(dir, "d"), seeds, "--", "--delay", "0s"}, nil, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "exactly one SEEDS file") {
		t.Errorf("exit %d, stderr %q; want 2: --delay and 0s are two more positional arguments", code, errb.String())
	}
}

// TestFlagsDefaultToConfig: a flag bound to a key defaults to the file's value (shown by -h),
// and wins over it when given.
func TestFlagsDefaultToConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "archivectl.yaml")
	os.WriteFile(cfg, []byte("crawl:\n  agent: filebot\n  delay: 7s\n  scope: domain\n  include: [/news/, /sport/]\n"), 0o644)
	robotsTxt := "User-agent: filebot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
	for _, tc := range []struct {
		args    []string
		allowed bool
	}{
		{[]string{"--config", cfg}, false},
		{[]string{"--config", cfg, "--agent", "flagbot"}, true},
		{[]string{"--agent", "flagbot", "--config", cfg}, true},
	} {
		var out, errb strings.Builder
		args := append(append([]string{}, tc.args...), "--robots", "-", "https://a.example/x")
		if code := runRobots(context.Background(), args, strings.NewReader(robotsTxt), &out, &errb); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errb.String())
		}
		if got := strings.Contains(out.String(), `"allowed":true`); got != tc.allowed {
			t.Errorf("%q: %s; want allowed %v", args, out.String(), tc.allowed)
		}
	}
	var out, errb strings.Builder
	if code := runCrawl(context.Background(), []string{"--config", cfg, "-h"}, nil, &out, &errb); code != 0 || errb.Len() != 0 ||
		!strings.Contains(out.String(), `(default "filebot")`) || !strings.Contains(out.String(), "(default 7s)") ||
		!strings.Contains(out.String(), `(default "domain")`) || !strings.Contains(out.String(), "(default /news/, /sport/)") {
		t.Errorf("crawl -h with a config: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if d := defaultConfig().Crawl.Delay; d != time.Second {
		t.Errorf("default delay %s, want the crawler's 1s", d)
	}
}
