package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/crawler/browser"
	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/archivectl/archivectl/internal/invalid"
	"github.com/archivectl/archivectl/lookup"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// problem is one setting out of range: its config key, its value as written, and why.
type problem struct {
	key    string // e.g. "crawl.delay"
	value  string // e.g. "-5s"
	reason string // e.g. "cannot be negative"
}

// in says what is wrong, naming the setting by name: a config key or a flag ("--delay").
func (p problem) in(name string) string {
	return fmt.Sprintf("invalid %s %s: %s", name, p.value, p.reason)
}

// maxRetries bounds crawl.retries: the back-off doubles at each retry.
const maxRetries = 10

// maxUnreachableDays bounds crawl.robots_unreachable_days (a century).
const maxUnreachableDays = 36500

// problems lists every setting of c out of range, in the order of the file's documentation.
func (c *Config) problems() []problem {
	var ps []problem
	bad := func(key string, value any, reason string) {
		v := fmt.Sprint(value)
		if s, ok := value.(string); ok {
			v = strconv.Quote(s)
		}
		ps = append(ps, problem{key, v, reason})
	}
	atLeast := func(key string, v, lo int64) {
		switch {
		case v < 0 && lo == 0:
			bad(key, v, "cannot be negative")
		case v < lo:
			bad(key, v, fmt.Sprintf("must be at least %d", lo))
		}
	}
	nonNegative := func(key string, d time.Duration) {
		if d < 0 {
			bad(key, d, "cannot be negative")
		}
	}
	positive := func(key string, d time.Duration) {
		if d <= 0 {
			bad(key, d, "must be more than 0s")
		}
	}
	if c.Data == "" {
		bad("data", c.Data, "name the data directory")
	}
	if hasControl(c.Operator) {
		bad("operator", c.Operator, "holds a control character")
	}
	if hasControl(c.Contact) {
		bad("contact", c.Contact, "holds a control character")
	}
	cc := c.Crawl
	if cc.Partition != "" {
		if _, err := crawler.ParsePartition(cc.Partition); err != nil {
			bad("crawl.partition", cc.Partition, reasonOf(err))
		}
	}
	if _, err := browser.ParseSnapshot(cc.Browser.Snapshot); err != nil {
		bad("crawl.browser.snapshot", cc.Browser.Snapshot, reasonOf(err))
	}
	if _, err := objectstore.ParseLocation(c.Public); err != nil {
		bad("public", c.Public, reasonOf(err))
	}
	if _, err := objectstore.ParseLocation(c.HandOff.Store); err != nil {
		bad("handoff.store", c.HandOff.Store, reasonOf(err))
	}
	sealedProblems(c, bad)
	if c.Node != "" && publish.ValidNode(c.Node) != nil {
		bad("node", c.Node, "use 1-63 lower-case letters, digits and '-', starting with a letter or digit")
	}
	if !robots.ValidAgent(cc.Agent) {
		bad("crawl.agent", cc.Agent, "not a product token: use letters, '-' and '_' only, e.g. archivectl")
	}
	if hasControl(cc.UserAgent) {
		bad("crawl.user_agent", cc.UserAgent, "holds a control character")
	}
	nonNegative("crawl.delay", cc.Delay)
	nonNegative("crawl.max_delay", cc.MaxDelay)
	atLeast("crawl.concurrency", int64(cc.Concurrency), 1)
	atLeast("crawl.max_pages", int64(cc.MaxPages), 0)
	atLeast("crawl.max_depth", int64(cc.MaxDepth), 0)
	atLeast("crawl.max_body", cc.MaxBody, 1)
	positive("crawl.timeout", cc.Timeout)
	if atLeast("crawl.retries", int64(cc.Retries), 0); cc.Retries > maxRetries {
		bad("crawl.retries", cc.Retries, fmt.Sprintf("must be at most %d", maxRetries))
	}
	if atLeast("crawl.max_url_length", int64(cc.MaxURLLength), 1); cc.MaxURLLength > crawler.MaxURLLengthCeiling {
		bad("crawl.max_url_length", cc.MaxURLLength, fmt.Sprintf("must be at most %d", crawler.MaxURLLengthCeiling))
	}
	atLeast("crawl.max_path_depth", int64(cc.MaxPathDepth), 0)
	atLeast("crawl.max_path_repeats", int64(cc.MaxPathRepeats), 0)
	positive("crawl.retry_backoff", cc.RetryBackoff)
	positive("crawl.max_retry_after", cc.MaxRetryAfter)
	if atLeast("crawl.robots_unreachable_days", int64(cc.RobotsUnreachableDays), 0); cc.RobotsUnreachableDays > maxUnreachableDays {
		bad("crawl.robots_unreachable_days", cc.RobotsUnreachableDays, fmt.Sprintf("must be at most %d", maxUnreachableDays))
	}
	reachProblems(cc, bad)
	atLeast("store.max_file_size", c.Store.MaxFileSize, 1)
	if !store.ValidDigest(c.Store.Digest) {
		bad("store.digest", c.Store.Digest, "not supported: use sha256 or sha1")
	}
	atLeast("release.shard_size", c.Release.ShardSize, 1)
	if c.Release.Schedule != "" {
		if err := release.CheckSchedule(c.Release.Schedule); err != nil {
			bad("release.schedule", c.Release.Schedule, err.Error())
		}
	}
	if err := checkListen(c.Serve.Listen); err != nil {
		bad("serve.listen", c.Serve.Listen, err.Error())
	}
	switch c.Serve.Check {
	case "on", "paste", "off":
	default:
		bad("serve.check", c.Serve.Check, "use on, paste or off")
	}
	if err := lookup.CheckReplayURL(c.Serve.ReplayURL); err != nil {
		bad("serve.replay_url", c.Serve.ReplayURL, err.Error())
	}
	return ps
}

// checkListen checks that addr is HOST:PORT, as net.Listen takes it, without resolving the host.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("not HOST:PORT, e.g. 127.0.0.1:8080 (or :8080 for every interface)")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("the port is a number from 0 to 65535")
	}
	return nil
}

// hasControl reports whether s holds a control character, which no header or warcinfo field may.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f })
}

// reasonOf is what to tell of a value a parser refused: its reason (an *invalid.Value), or the
// whole error when it has none.
func reasonOf(err error) string {
	if r, ok := invalid.Reason(err); ok {
		return r
	}
	return err.Error()
}
