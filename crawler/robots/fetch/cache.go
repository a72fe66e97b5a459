package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/archivectl/archivectl/embargo"
)

// MaxRedirects is how many consecutive redirects a robots.txt fetch follows; one more makes
// the file unavailable (RFC 9309 §2.3.1.2, docs/rules.md#d10).
const MaxRedirects = 5

// CacheOptions tune a Cache; zero fields take the defaults.
type CacheOptions struct {
	MaxTTL   time.Duration // longest use of a fetched copy (default and ceiling 24 h, RFC 9309 §2.4)
	MinTTL   time.Duration // floor for no-store, no-cache or max-age=0 (default 60 s, docs/rules.md#d22)
	RetryTTL time.Duration // how long an unreachable result stands before the next attempt (default 5 min; Retry-After may lengthen it)
	// UnreachableAllowAfter treats an origin unreachable for this long, with no cached copy,
	// as unavailable (allow all). Zero keeps disallowing (docs/rules.md#d10).
	UnreachableAllowAfter time.Duration
	Limit                 int64 // body bytes read per exchange (default MaxBytes+1, so that a cut line can be told apart)
}

// Cache holds the robots.txt of each origin for its time to live (docs/rules.md#d22); safe for concurrent use.
// One fetch per origin runs at a time; concurrent callers wait for it.
type Cache struct {
	fetch Func
	now   func() time.Time
	opts  CacheOptions

	mu      sync.Mutex
	origins map[string]*entry
}

// entry is the cache state of one origin.
type entry struct {
	sem         chan struct{} // one slot, held while an origin's state is read or fetched
	cur         *robots.File  // the result in force
	good        *robots.File  // the last Available result, used while unreachable
	unreachable time.Time     // start of the current unreachable spell; zero when reachable
	validators  Validators    // of the good copy, for a conditional refetch
}

// Validators are the cache validators of the robots.txt copy a Cache holds. The Cache hands
// them to its Func through the context; a Func that sends them as If-None-Match and
// If-Modified-Since (as HTTP does) lets an unchanged file cost a 304 (docs/rules.md#d22).
type Validators struct {
	ETag         string
	LastModified string
}

// validatorsKey is the context key of Validators.
type validatorsKey struct{}

// ValidatorsFrom returns the validators a Cache put in the context of a Func call.
func ValidatorsFrom(ctx context.Context) (Validators, bool) {
	v, ok := ctx.Value(validatorsKey{}).(Validators)
	return v, ok
}

// NewCache returns a cache that fetches with fetch and reads time from now.
func NewCache(fetch Func, now func() time.Time, opts CacheOptions) *Cache {
	if opts.MaxTTL <= 0 || opts.MaxTTL > 24*time.Hour {
		opts.MaxTTL = 24 * time.Hour
	}
	if opts.MinTTL <= 0 {
		opts.MinTTL = time.Minute
	}
	if opts.MinTTL > opts.MaxTTL {
		opts.MinTTL = opts.MaxTTL
	}
	if opts.RetryTTL <= 0 {
		opts.RetryTTL = 5 * time.Minute
	}
	if opts.Limit <= 0 {
		opts.Limit = robots.MaxBytes + 1
	}
	return &Cache{fetch: fetch, now: now, opts: opts, origins: make(map[string]*entry)}
}

// Get returns the robots.txt in force for origin ("scheme://host[:port]"), fetching it when the
// cached copy has expired. fresh reports that this call fetched it: the caller archives r.Hops
// then. err is only ever the context's error.
func (c *Cache) Get(ctx context.Context, origin string) (r *robots.File, fresh bool, err error) {
	origin = strings.TrimSuffix(origin, "/")
	c.mu.Lock()
	e := c.origins[origin]
	if e == nil {
		e = &entry{sem: make(chan struct{}, 1)}
		c.origins[origin] = e
	}
	c.mu.Unlock()

	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	defer func() { <-e.sem }()
	now := c.now()
	if e.cur != nil && now.Before(e.cur.Expires) {
		return e.cur, false, nil
	}
	r, err = c.refresh(ctx, origin, e, now)
	if err != nil {
		return nil, false, err
	}
	e.cur = r
	return r, true, nil
}

// refresh fetches origin's robots.txt, following redirects, and applies the status rules of
// RFC 9309 §2.3.1 with docs/rules.md#d10.
func (c *Cache) refresh(ctx context.Context, origin string, e *entry, now time.Time) (*robots.File, error) {
	r := &robots.File{Origin: origin, FetchedAt: now}
	target := origin + "/robots.txt"
	fctx := ctx
	if e.good != nil && e.validators != (Validators{}) {
		fctx = context.WithValue(ctx, validatorsKey{}, e.validators)
	}
	for {
		f, err := c.fetch(fctx, target, c.opts.Limit)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return c.unreachable(r, e, now, nil, err.Error()), nil
		}
		r.Hops = append(r.Hops, f)
		h := http.Header(f.Header)
		switch s := f.Status; {
		case s >= 200 && s < 300:
			r.Availability, r.Policy, r.Reason = robots.Available, robots.NewPolicy(f.Body), "HTTP "+strconv.Itoa(s)
			r.Expires = now.Add(c.ttl(h, now))
			e.good, e.unreachable = r, time.Time{}
			e.validators = Validators{ETag: h.Get("ETag"), LastModified: h.Get("Last-Modified")}
			return r, nil
		case s == http.StatusNotModified && e.good != nil:
			r.Availability, r.Policy = robots.Available, e.good.Policy
			r.Reason = "HTTP 304: the copy fetched " + e.good.FetchedAt.UTC().Format(time.RFC3339) + " is unchanged"
			r.Expires = now.Add(c.ttl(h, now))
			e.unreachable = time.Time{}
			return r, nil
		case s >= 300 && s < 400:
			next, reason := redirectTarget(origin, f)
			if reason == "" && len(r.Hops) > MaxRedirects {
				reason = fmt.Sprintf("more than %d redirects", MaxRedirects)
			}
			if reason != "" {
				return c.available(r, e, now, robots.Unavailable, h, reason), nil
			}
			target = next
		case s == http.StatusTooManyRequests || s >= 500 && s < 600:
			return c.unreachable(r, e, now, h, "HTTP "+strconv.Itoa(s)), nil
		case s >= 400 && s < 500:
			return c.available(r, e, now, robots.Unavailable, h, "HTTP "+strconv.Itoa(s)), nil
		default:
			return c.unreachable(r, e, now, h, "unexpected HTTP status "+strconv.Itoa(s)), nil
		}
	}
}

// redirectTarget resolves a redirect's Location; reason is non-empty when it cannot be followed.
// A redirect is followed to any URL of origin, whose own server names it as its robots.txt, and
// to any other origin's /robots.txt (always allowed to be fetched there); never to another origin's
// other resources, which that origin's own rules and politeness govern (docs/rules.md#d23).
func redirectTarget(origin string, f *robots.Fetched) (next, reason string) {
	loc := http.Header(f.Header).Get("Location")
	if loc == "" {
		return "", "HTTP " + strconv.Itoa(f.Status) + " without Location"
	}
	base, err := url.Parse(f.URL)
	if err != nil {
		return "", "bad redirect from " + f.URL
	}
	u, err := base.Parse(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "bad redirect to " + strconv.Quote(loc)
	}
	u.Fragment = ""
	next = u.String()
	if !sameOrigin(u, origin) && !embargo.RobotsExempt(next) {
		return "", "redirect to " + strconv.Quote(next) + ", another origin's resource that is not its robots.txt: not fetched"
	}
	return next, ""
}

// sameOrigin reports whether u lies on origin ("scheme://host[:port]").
func sameOrigin(u *url.URL, origin string) bool {
	o, err := url.Parse(origin)
	return err == nil && robots.Origin(u) == robots.Origin(o)
}

// available settles r as Available or Unavailable with the response's time to live.
func (c *Cache) available(r *robots.File, e *entry, now time.Time, a robots.Availability, h http.Header, reason string) *robots.File {
	r.Availability, r.Reason = a, reason
	r.Expires = now.Add(c.ttl(h, now))
	e.unreachable = time.Time{}
	return r
}

// unreachable settles r as Unreachable, using the last good copy when there is one (docs/rules.md#d10).
func (c *Cache) unreachable(r *robots.File, e *entry, now time.Time, h http.Header, reason string) *robots.File {
	r.Availability, r.Reason = robots.Unreachable, reason
	if e.unreachable.IsZero() {
		e.unreachable = now
	}
	retry := c.opts.RetryTTL
	if d, ok := RetryAfter(h.Get("Retry-After"), now); ok && d > retry {
		retry = min(d, c.opts.MaxTTL)
	}
	r.Expires = now.Add(retry)
	switch {
	case e.good != nil:
		r.Policy, r.Stale = e.good.Policy, true
		r.Reason += "; using the copy fetched " + e.good.FetchedAt.UTC().Format(time.RFC3339)
	case c.opts.UnreachableAllowAfter > 0 && now.Sub(e.unreachable) >= c.opts.UnreachableAllowAfter:
		r.Availability = robots.Unavailable
		r.Reason += "; unreachable since " + e.unreachable.UTC().Format(time.RFC3339) + ", so treated as unavailable"
	}
	return r
}

// ttl is min(MaxTTL, the HTTP freshness lifetime) with the MinTTL floor (docs/rules.md#d22).
func (c *Cache) ttl(h http.Header, now time.Time) time.Duration {
	d, ok := freshness(h, now)
	if !ok {
		return c.opts.MaxTTL
	}
	return max(c.opts.MinTTL, min(d, c.opts.MaxTTL))
}

// freshness reads how long the response stays fresh (RFC 9111 §4.2): Cache-Control (no-store,
// no-cache, max-age) or Expires (relative to Date when present), less its Age; ok is false
// when the response gives no freshness information.
func freshness(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	maxAge, found := time.Duration(0), false
	for _, line := range h.Values("Cache-Control") {
		for _, dir := range strings.Split(line, ",") {
			name, value, _ := strings.Cut(strings.TrimSpace(dir), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store", "no-cache":
				return 0, true
			case "max-age":
				n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(value), `"`), 10, 64)
				if err != nil || n < 0 {
					return 0, true // an invalid max-age means stale (RFC 9111 §4.2.1)
				}
				maxAge, found = time.Duration(min(n, 1<<32))*time.Second, true
			}
		}
	}
	if found {
		return max(0, maxAge-age(h)), true
	}
	if v := h.Get("Expires"); v != "" {
		exp, err := http.ParseTime(v)
		if err != nil {
			return 0, true // an invalid Expires means already expired
		}
		base := now
		if d, err := http.ParseTime(h.Get("Date")); err == nil {
			base = d
		}
		return max(0, exp.Sub(base)-age(h)), true
	}
	return 0, false
}

// age is the Age header field: how long a cache upstream has held the response already.
func age(h http.Header) time.Duration {
	n, err := strconv.ParseInt(strings.TrimSpace(h.Get("Age")), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(min(n, 1<<32)) * time.Second
}
