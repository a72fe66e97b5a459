package main

import (
	"fmt"
	"strconv"

	"github.com/archivectl/archivectl/crawler/robots"
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
	if c.Data == "" {
		bad("data", c.Data, "name the data directory")
	}
	if !robots.ValidAgent(c.Crawl.Agent) {
		bad("crawl.agent", c.Crawl.Agent, "not a product token: use letters, '-' and '_' only, e.g. archivectl")
	}
	if c.Crawl.Delay < 0 {
		bad("crawl.delay", c.Crawl.Delay, "cannot be negative")
	}
	if c.Crawl.MaxPages < 0 {
		bad("crawl.max_pages", c.Crawl.MaxPages, "cannot be negative")
	}
	if c.Crawl.MaxDepth < 0 {
		bad("crawl.max_depth", c.Crawl.MaxDepth, "cannot be negative")
	}
	return ps
}
