package robots

import (
	"net/url"
	"strings"
	"time"
)

// Availability is what fetching an origin's robots.txt established (RFC 9309 §2.3.1).
type Availability int

// The outcomes of fetching robots.txt.
const (
	Available   Availability = iota // a 2xx body was parsed: its rules apply
	Unavailable                     // 4xx (not 429), or too many redirects: everything is allowed
	Unreachable                     // 429, 5xx or a network failure: everything is disallowed
)

// String names the availability.
func (a Availability) String() string {
	switch a {
	case Available:
		return "available"
	case Unavailable:
		return "unavailable"
	case Unreachable:
		return "unreachable"
	}
	return "unknown"
}

// File is the robots.txt in force for one origin.
type File struct {
	Origin       string       // scheme://host[:port]
	Availability Availability // what the last fetch established
	Policy       *Policy      // nil unless Available (or a cached copy used while unreachable)
	FetchedAt    time.Time    // when the last fetch started
	Expires      time.Time    // when the cache fetches again (fetch.Cache.Get)
	Hops         []*Fetched   // every exchange of the last fetch (redirects included), for archiving
	Stale        bool         // Policy is a cached copy used while the origin is unreachable
	Reason       string       // one line on how the last fetch ended, e.g. "HTTP 503" or the network error
}

// Fetched is one HTTP exchange for a robots.txt, redirects not followed, as a fetcher
// (crawler/robots/fetch) gives it.
type Fetched struct {
	URL       string
	Status    int
	Header    map[string][]string // the response's header fields, an http.Header (this package links no network code)
	Body      []byte              // at most limit bytes
	Truncated bool                // the body was longer than limit
	Evidence  any                 // opaque to robots: the fetcher's raw exchange, handed back for archiving
}

// Evaluate decides for a URL on r's origin; see EvaluatePath.
func (r *File) Evaluate(agent string, u *url.URL) Decision {
	return r.EvaluatePath(agent, PathQuery(u))
}

// EvaluatePath decides for a path-and-query on r's origin. "/robots.txt" is always allowed;
// otherwise an unavailable file allows everything and an unreachable one without a cached
// copy disallows everything.
func (r *File) EvaluatePath(agent, pathQuery string) Decision {
	if r.Policy != nil {
		return r.Policy.Evaluate(agent, pathQuery)
	}
	if pathQuery == "" {
		pathQuery = "/"
	}
	if normalize(pathQuery, false) == "/robots.txt" {
		return Decision{Allowed: true, Rule: Rule{Kind: KindImplicit}}
	}
	switch r.Availability {
	case Available:
		return emptyPolicy.Evaluate(agent, pathQuery)
	case Unavailable:
		return Decision{Allowed: true, Rule: Rule{Kind: KindUnavailable}}
	}
	return Decision{Allowed: false, Rule: Rule{Kind: KindUnreachable}}
}

// PathQuery is the path-and-query of u: the path as it was written when u was parsed (else
// its escaped form; "/" when empty) and "?query" when there is one; scheme, authority and
// fragment are dropped. Evaluation normalises it (docs/rules.md#d4), so the written and the escaped form of
// a path evaluate alike.
func PathQuery(u *url.URL) string {
	p := u.EscapedPath()
	if u.RawPath != "" {
		if dec, err := url.PathUnescape(u.RawPath); err == nil && dec == u.Path {
			p = u.RawPath
		}
	}
	if p == "" {
		p = "/"
	}
	if u.ForceQuery || u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// Origin is the scheme and authority a robots.txt covers: "scheme://host[:port]" in lowercase,
// without the scheme's default port.
func Origin(u *url.URL) string {
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	switch {
	case scheme == "http" && strings.HasSuffix(host, ":80"):
		host = strings.TrimSuffix(host, ":80")
	case scheme == "https" && strings.HasSuffix(host, ":443"):
		host = strings.TrimSuffix(host, ":443")
	}
	return scheme + "://" + host
}
