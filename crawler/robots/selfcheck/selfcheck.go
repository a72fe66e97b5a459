// Package selfcheck is the publisher self-check: a page and a JSON API where a publisher gives a
// robots.txt (pasted, or fetched once from their origin) and a list of URLs, and sees what the
// crawler would do with each: allowed or not and the deciding line, the embargo period and the
// release date of a capture made now, the Content-Usage preferences, and warnings on rules that
// do not do what they seem to (docs/formats.md#check-json).
//
// It decides with the crawler's own engine, crawler/robots, so it lives beside it and not in
// the public side, which links nothing of the crawler (docs/architecture.md#imports).
package selfcheck

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/archivectl/archivectl/crawler/robots/fetch"
	"github.com/archivectl/archivectl/embargo"
)

// The bounds of one check (docs/formats.md#check-json).
const (
	MaxRobotsBytes  = robots.MaxBytes // a pasted robots.txt: the bytes the crawler parses, 500 KiB
	MaxURLs         = 1000
	MaxURLBytes     = 4096
	MaxAgentBytes   = 256
	MaxWarnings     = 100     // file warnings shown; the rest are counted in warnings_omitted
	maxRequestBytes = 4 << 20 // a whole request body: the largest robots.txt and URL list fit
)

// The kinds of failure of a check, told apart with errors.Is; the handler maps them to HTTP status.
var (
	ErrInvalid     = errors.New("invalid check")                       // 400
	ErrTooLarge    = errors.New("too large")                           // 413
	ErrTimeLimit   = errors.New("not finished within the time limit")  // 413: the check is too large to run
	ErrRateLimited = errors.New("too many robots.txt fetches")         // 429
	ErrBusy        = errors.New("too many checks running")             // 503
	ErrDisabled    = errors.New("fetching robots.txt is switched off") // 400
)

// Options configure a Handler; zero fields take the defaults.
type Options struct {
	Agent        string           // the product token checked when the request names none (default "archivectl")
	UserAgent    string           // the User-Agent of robots.txt fetches
	AllowPrivate bool             // fetch from loopback, private and other non-public addresses too
	NoFetch      bool             // refuse checks that name an origin: pasted robots.txt only
	Client       *http.Client     // robots.txt fetches; default: public addresses only (unless AllowPrivate), no proxy
	FetchTimeout time.Duration    // one robots.txt exchange (default 5 s)
	TimeLimit    time.Duration    // one whole check (default 10 s)
	FetchRate    rate.Limit       // robots.txt fetches per second over all origins (default one every 2 s)
	FetchBurst   int              // (default 10)
	Parallel     int              // checks run at once (default 2)
	Now          func() time.Time // the clock of release dates (default time.Now)
	Logger       *slog.Logger
}

// Handler answers GET and POST /check (the page) and POST /api/v1/check (JSON).
type Handler struct {
	opt     Options
	log     *slog.Logger
	now     func() time.Time
	limit   *rate.Limiter
	slots   chan struct{}
	fetch   fetch.Func
	mu      sync.Mutex
	cache   *fetch.Cache
	origins int // origins the cache has seen; it starts afresh past maxOrigins
}

// maxOrigins bounds the robots.txt copies the handler keeps.
const maxOrigins = 1024

// originTTL is how long a fetched robots.txt is used: a publisher who changes their file sees
// the change a minute later, and no origin is fetched more than once a minute.
const originTTL = time.Minute

// New returns the self-check handler.
func New(opt Options) *Handler {
	if opt.Agent == "" {
		opt.Agent = "archivectl"
	}
	if opt.UserAgent == "" {
		opt.UserAgent = opt.Agent + " (publisher self-check)"
	}
	if opt.FetchTimeout <= 0 {
		opt.FetchTimeout = 5 * time.Second
	}
	if opt.TimeLimit <= 0 {
		opt.TimeLimit = 10 * time.Second
	}
	if opt.FetchRate <= 0 {
		opt.FetchRate = 0.5
	}
	if opt.FetchBurst <= 0 {
		opt.FetchBurst = 10
	}
	if opt.Parallel <= 0 {
		opt.Parallel = 2
	}
	h := &Handler{opt: opt, log: opt.Logger, now: opt.Now,
		limit: rate.NewLimiter(opt.FetchRate, opt.FetchBurst), slots: make(chan struct{}, opt.Parallel)}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.now == nil {
		h.now = time.Now
	}
	client := opt.Client
	if client == nil {
		client = newClient(opt.FetchTimeout, opt.AllowPrivate)
	}
	inner := fetch.HTTP(client, opt.UserAgent)
	h.fetch = func(ctx context.Context, url string, limit int64) (*robots.Fetched, error) {
		return inner(unconditional{ctx}, url, limit)
	}
	return h
}

// unconditional hides the Cache's validators from the fetch: the self-check always wants the
// file's bytes (a 304 would bring none), so its requests are never conditional.
type unconditional struct{ context.Context }

// Value implements context.Context.
func (c unconditional) Value(key any) any {
	v := c.Context.Value(key)
	if _, ok := v.(fetch.Validators); ok {
		return nil
	}
	return v
}

// Request is one check (docs/formats.md#check-json).
type Request struct {
	RobotsTxt    *string  `json:"robots_txt,omitempty"`    // the robots.txt to check; or
	Origin       string   `json:"origin,omitempty"`        // the origin whose /robots.txt is fetched
	URLs         []string `json:"urls"`                    // absolute URLs, or paths
	Agent        string   `json:"agent,omitempty"`         // the product token; the server's when empty
	LastModified string   `json:"last_modified,omitempty"` // an HTTP-date or RFC 3339 time: a second release date
}

// Response is the answer to a check.
type Response struct {
	Agent        string           `json:"agent"`
	Now          string           `json:"now"`           // RFC 3339, UTC: the capture time the release dates assume
	LastModified string           `json:"last_modified"` // as read, RFC 3339; "" when not given
	Robots       Source           `json:"robots"`
	Groups       []Group          `json:"groups"`           // the groups that apply to the agent
	Specific     bool             `json:"specific"`         // a group names the agent (else the "*" groups apply)
	Warnings     []robots.Warning `json:"warnings"`         // about the file as a whole, for this agent; the first MaxWarnings
	Omitted      int              `json:"warnings_omitted"` // how many more there are
	Results      []Result         `json:"results"`
}

// Source is where the robots.txt came from.
type Source struct {
	robots.Source
	Bytes int `json:"bytes"` // the size of the body checked
}

// Group is one robots.txt group: its first user-agent line and the tokens it names.
type Group struct {
	Line   int      `json:"line"`
	Agents []string `json:"agents"`
}

// Result is the check of one URL: what `archivectl robots` prints (docs/formats.md#robots-json),
// then the self-check's own fields.
type Result struct {
	robots.Report
	RuleText              string           `json:"rule_text"`                // the deciding line as written; "" when no line decided
	ReleaseAt             *string          `json:"release_at"`               // a capture made now; null when not allowed
	ReleaseAtLastModified *string          `json:"release_at_last_modified"` // with the Last-Modified given; null without
	Expressions           []string         `json:"usage_expressions"`        // the combined preferences, e.g. "train-ai=n"
	Warnings              []robots.Warning `json:"warnings"`
}

// Check runs one check.
func (h *Handler) Check(ctx context.Context, req Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, h.opt.TimeLimit)
	defer cancel()
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	case <-ctx.Done():
		return nil, fmt.Errorf("waited %s for a free slot: %w", h.opt.TimeLimit, ErrBusy)
	}
	now := h.now().UTC()
	agent := strings.TrimSpace(req.Agent)
	if agent == "" {
		agent = h.opt.Agent
	}
	if len(agent) > MaxAgentBytes {
		return nil, fmt.Errorf("the product token is %d bytes, more than %d: %w", len(agent), MaxAgentBytes, ErrTooLarge)
	}
	if err := checkURLs(req.URLs); err != nil {
		return nil, err
	}
	var lm time.Time
	if v := strings.TrimSpace(req.LastModified); v != "" {
		var ok bool
		if lm, ok = embargo.ParseHTTPDate(v, now); !ok {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return nil, fmt.Errorf("last_modified %q is neither an HTTP-date (Sun, 06 Nov 1994 08:49:37 GMT) nor an RFC 3339 time: %w", v, ErrInvalid)
			}
			lm = t.UTC()
		}
	}
	res := &Response{Agent: agent, Now: now.Format(time.RFC3339)}
	if !lm.IsZero() {
		res.LastModified = lm.Format(time.RFC3339)
	}

	var file *robots.File
	var lint *robots.Lint
	origin := ""
	switch {
	case req.RobotsTxt != nil && req.Origin != "":
		return nil, fmt.Errorf("give robots_txt or origin, not both: %w", ErrInvalid)
	case req.RobotsTxt != nil:
		body := *req.RobotsTxt
		if len(body) > MaxRobotsBytes {
			return nil, fmt.Errorf("the robots.txt is %d bytes, more than the %d the crawler reads: %w", len(body), MaxRobotsBytes, ErrTooLarge)
		}
		lint = robots.NewLint([]byte(body))
		file = &robots.File{Availability: robots.Available, Policy: lint.Policy, Reason: "pasted"}
		res.Robots = Source{Source: robots.Source{Availability: file.Availability.String(), Reason: file.Reason}, Bytes: len(body)}
	case req.Origin != "":
		var err error
		if origin, err = h.originOf(req.Origin); err != nil {
			return nil, err
		}
		if file, lint, err = h.fetchFile(ctx, origin); err != nil {
			return nil, err
		}
		res.Robots = Source{Source: robots.Source{URL: origin + "/robots.txt", Availability: file.Availability.String(), Reason: file.Reason, Stale: file.Stale}}
		if n := len(file.Hops); n > 0 {
			res.Robots.Status = file.Hops[n-1].Status
			res.Robots.Bytes = len(file.Hops[n-1].Body)
		}
	default:
		return nil, fmt.Errorf("give robots_txt (the file) or origin (to fetch its /robots.txt): %w", ErrInvalid)
	}

	res.Warnings = []robots.Warning{}
	res.Groups = []Group{}
	if lint != nil {
		res.Warnings = lint.Warnings(agent)
		if n := len(res.Warnings); n > MaxWarnings {
			res.Warnings, res.Omitted = res.Warnings[:MaxWarnings:MaxWarnings], n-MaxWarnings
		}
		groups, specific := lint.Selected(agent)
		res.Specific = specific
		for _, g := range groups {
			res.Groups = append(res.Groups, Group{Line: lint.GroupLine(g), Agents: lint.GroupTokens(g)})
		}
	}
	res.Results = make([]Result, 0, len(req.URLs))
	for i, raw := range req.URLs {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("checked %d of %d URLs in %s; check fewer URLs at once: %w", i, len(req.URLs), h.opt.TimeLimit, ErrTimeLimit)
		}
		r, err := h.evaluate(raw, origin, agent, file, lint, now, lm)
		if err != nil {
			return nil, err
		}
		res.Results = append(res.Results, r)
	}
	return res, nil
}

// checkURLs applies the bounds of the URL list.
func checkURLs(urls []string) error {
	switch {
	case len(urls) == 0:
		return fmt.Errorf("no URL to check: give urls, absolute URLs or paths: %w", ErrInvalid)
	case len(urls) > MaxURLs:
		return fmt.Errorf("%d URLs, more than %d in one check: %w", len(urls), MaxURLs, ErrTooLarge)
	}
	for _, u := range urls {
		if len(u) > MaxURLBytes {
			return fmt.Errorf("a URL of %d bytes, more than %d: %w", len(u), MaxURLBytes, ErrTooLarge)
		}
	}
	return nil
}

// originOf reads the origin a person named: "https://example.com", with or without a path
// (ignored), or a bare host, taken as https.
func (h *Handler) originOf(raw string) (string, error) {
	if h.opt.NoFetch {
		return "", fmt.Errorf("this server checks pasted robots.txt files only; paste the file: %w", ErrDisabled)
	}
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	t, err := robots.ParseTarget(raw, false)
	if err != nil {
		return "", fmt.Errorf("origin: %w: %w", err, ErrInvalid)
	}
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return "", fmt.Errorf("origin %q: a user name is not part of an origin: %w", raw, ErrInvalid)
	}
	return t.Origin, nil
}

// fetchFile returns origin's robots.txt through the crawler's fetch rules and cache, and its Lint.
func (h *Handler) fetchFile(ctx context.Context, origin string) (*robots.File, *robots.Lint, error) {
	u, _ := url.Parse(origin)
	if !h.opt.AllowPrivate {
		if err := checkHost(ctx, u.Hostname()); err != nil {
			return nil, nil, fmt.Errorf("refused to fetch %s/robots.txt: %w; only public origins are fetched", origin, err)
		}
	}
	if !h.limit.Allow() {
		return nil, nil, fmt.Errorf("try again in a minute, or paste the file: %w", ErrRateLimited)
	}
	h.mu.Lock()
	if h.cache == nil || h.origins >= maxOrigins {
		h.cache = fetch.NewCache(h.fetch, h.now, fetch.CacheOptions{MaxTTL: originTTL, MinTTL: originTTL, RetryTTL: originTTL})
		h.origins = 0
	}
	c := h.cache
	h.origins++
	h.mu.Unlock()
	file, fresh, err := c.Get(ctx, origin)
	if err != nil {
		return nil, nil, fmt.Errorf("fetching %s/robots.txt: %w", origin, ErrTimeLimit)
	}
	h.log.Info("self-check fetched robots.txt", "origin", origin, "fresh", fresh, "availability", file.Availability.String(), "reason", file.Reason)
	if n := len(file.Hops); file.Availability == robots.Available && !file.Stale && n > 0 {
		if last := file.Hops[n-1]; last.Status >= 200 && last.Status < 300 {
			return file, robots.NewLint(last.Body), nil // the same bytes the cache's Policy was built from
		}
	}
	return file, nil, nil
}

// evaluate checks one URL.
func (h *Handler) evaluate(raw, origin, agent string, file *robots.File, lint *robots.Lint, now, lm time.Time) (Result, error) {
	t, err := robots.ParseTarget(strings.TrimSpace(raw), true)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", err, ErrInvalid)
	}
	t.Raw = raw
	if origin != "" {
		switch {
		case t.Origin == "":
			t.Origin = origin
		case t.Origin != origin:
			return Result{}, fmt.Errorf("%q is not on %s, whose robots.txt is checked: %w", raw, origin, ErrInvalid)
		}
	}
	pol := file.Policy
	if lint != nil {
		pol = lint.Policy
	}
	f := *file
	f.Policy = pol
	d := f.EvaluatePath(agent, t.PathQuery)
	r := Result{Report: robots.NewReport(t, d, file), Warnings: []robots.Warning{}, Expressions: []string{}}
	if origin == "" {
		r.Robots.URL = ""
	}
	if d.Allowed {
		at := embargo.ReleaseAt(time.Time{}, now, d.Period).Format(time.RFC3339)
		r.ReleaseAt = &at
		if !lm.IsZero() {
			at := embargo.ReleaseAt(lm, now, d.Period).Format(time.RFC3339)
			r.ReleaseAtLastModified = &at
		}
		r.Expressions = append(r.Expressions, d.Usage().Expressions()...)
	}
	if lint != nil {
		r.RuleText = lint.Line(d.Rule.Line)
		r.Warnings = append(r.Warnings, lint.URLWarnings(agent, t.PathQuery, d)...)
	}
	return r, nil
}
