package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/archivectl/archivectl/crawler/robots"
	robotsfetch "github.com/archivectl/archivectl/crawler/robots/fetch"
)

const robotsUsage = `usage: archivectl robots [--agent TOKEN] [--robots FILE] URL...

Evaluates robots.txt (RFC 9309 with Archive-Embargo, Embargo-Allow and Content-Usage) for
each URL and prints one JSON object per URL. With --robots FILE ("-" for stdin) the file is
used for every URL; without it /robots.txt is fetched from each URL's origin.

flags:
`

// runRobots is "archivectl robots".
func runRobots(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var file string
	cfg, rawURLs, code, ok := cli{
		name:   "robots",
		usage:  robotsUsage,
		config: true,
		flags: func(fs *flagSet, c *Config) {
			fs.stringKey(&c.Crawl.Agent, "agent", "crawl.agent", "product token matched against user-agent lines")
			fs.StringVar(&file, "robots", "", `robots.txt file to evaluate ("-" for stdin); without it, fetch from each URL's origin`)
		},
	}.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	token := cfg.Crawl.Agent
	if len(rawURLs) == 0 {
		fmt.Fprintln(stderr, "archivectl robots: no URL given; usage: archivectl robots --agent TOKEN [--robots FILE] URL...")
		return 2
	}
	targets := make([]robots.Target, len(rawURLs))
	for i, raw := range rawURLs {
		var err error
		if targets[i], err = robots.ParseTarget(raw, file != ""); err != nil {
			fmt.Fprintf(stderr, "archivectl robots: %v\n", robotsTargetError(err))
			return 2
		}
		if o := targets[i].Origin; o != "" && !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") {
			// As for a seed: archivectl crawls only http and https, robots.txt file at hand or not.
			fmt.Fprintf(stderr, "archivectl robots: invalid URL %q: not an absolute http or https URL; archivectl crawls only those\n", raw)
			return 2
		}
	}

	var rulesFor func(origin string) (*robots.File, error)
	if file != "" {
		p, err := readRobotsFile(file, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "archivectl robots: %v\n", err)
			return 2
		}
		r := &robots.File{Availability: robots.Available, Policy: p, Reason: "read from " + file}
		rulesFor = func(string) (*robots.File, error) { return r, nil }
	} else {
		ua := cfg.Crawl.UserAgent
		if ua == "" {
			ua = defaultUserAgent(token, cfg.Contact)
		}
		client := &http.Client{Timeout: cfg.Crawl.Timeout}
		cache := robotsfetch.NewCache(robotsfetch.HTTP(client, ua), time.Now, robotsfetch.CacheOptions{})
		rulesFor = func(origin string) (*robots.File, error) {
			r, _, err := cache.Get(ctx, origin)
			return r, err
		}
	}

	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for _, t := range targets {
		r, err := rulesFor(t.Origin)
		if err != nil {
			fmt.Fprintf(stderr, "archivectl robots: interrupted: %v\n", err)
			return 1
		}
		res := robots.NewReport(t, r.EvaluatePath(token, t.PathQuery), r)
		if file != "" {
			res.Robots.URL = file
		}
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "archivectl robots: writing output: %v\n", err)
			return 1
		}
	}
	return 0
}

// robotsTargetError adds to a robots.ParseTarget error what the person can do about it.
func robotsTargetError(err error) error {
	switch {
	case errors.Is(err, robots.ErrNotFetchable):
		return fmt.Errorf("%w; pass the file with --robots FILE", err)
	case errors.Is(err, robots.ErrNoHost):
		return fmt.Errorf("%w; give a URL such as https://example.com/page", err)
	}
	return fmt.Errorf("%w; give an absolute URL such as https://example.com/page", err)
}

// readRobotsFile parses the robots.txt file given with --robots ("-" for stdin).
func readRobotsFile(name string, stdin io.Reader) (*robots.Policy, error) {
	var r io.Reader = stdin
	if r == nil {
		r = strings.NewReader("")
	}
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("cannot read robots.txt file: %v; check the path given with --robots", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, fmt.Errorf("cannot read robots.txt file %s: it is a directory; give a file with --robots", name)
		}
		r = f
	}
	p, err := robots.ReadPolicy(r)
	if err != nil {
		return nil, fmt.Errorf("cannot read robots.txt file %s: %v", name, err)
	}
	return p, nil
}
