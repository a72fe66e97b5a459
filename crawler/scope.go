package crawler

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/archivectl/archivectl/crawler/extract"
	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/archivectl/archivectl/internal/invalid"
	"golang.org/x/net/publicsuffix"
)

// Scope is the rule that says which URLs a seed's crawl follows links to.
type Scope string

// The scopes a seed may have.
const (
	ScopeOrigin Scope = "origin" // the seed's scheme, host and port
	ScopeHost   Scope = "host"   // the seed's host, any scheme or port
	ScopeDomain Scope = "domain" // the seed's registrable domain (public suffix list) and its subdomains, any scheme or port
	ScopePrefix Scope = "prefix" // the seed's origin, under the seed's path up to its last '/'
)

// DefaultScope is the scope of a seed that names none, when the crawl sets no other.
const DefaultScope = ScopeOrigin

// ParseScope reads a scope name; "" is DefaultScope.
func ParseScope(s string) (Scope, error) {
	switch sc := Scope(strings.ToLower(strings.TrimSpace(s))); sc {
	case "":
		return DefaultScope, nil
	case ScopeOrigin, ScopeHost, ScopeDomain, ScopePrefix:
		return sc, nil
	}
	return "", fmt.Errorf("unknown scope %q: use origin, host, domain or prefix", s)
}

// scope decides which URLs the crawl treats as its own pages: those a seed's rule covers that
// match an include pattern (when there are any) and no exclude pattern.
type scope struct {
	origins  map[string]bool     // scheme://host[:port]
	hosts    map[string]bool     // host names in ASCII
	domains  map[string]bool     // registrable domains in ASCII
	prefixes map[string][]string // origin → escaped path prefixes
	include  []urlPattern
	exclude  []urlPattern
}

// newScope builds the scope of seeds; a seed without a scope takes def.
func newScope(seeds []Seed, def Scope, include, exclude []string) (*scope, error) {
	s := &scope{origins: map[string]bool{}, hosts: map[string]bool{}, domains: map[string]bool{}, prefixes: map[string][]string{}}
	for _, sd := range seeds {
		sc := sd.Scope
		if sc == "" {
			sc = def
		}
		u := sd.URL
		switch sc {
		case ScopeOrigin, "":
			s.origins[origin(u)] = true
		case ScopeHost:
			s.hosts[u.Hostname()] = true // canonical: in ASCII
		case ScopeDomain:
			s.domains[registrable(u.Hostname())] = true
		case ScopePrefix:
			s.prefixes[origin(u)] = append(s.prefixes[origin(u)], pathPrefix(u))
		default:
			return nil, fmt.Errorf("seed %s: unknown scope %q", u, sc)
		}
	}
	var errs []error
	for _, raw := range include {
		p, err := parseURLPattern(raw)
		errs = append(errs, err)
		s.include = append(s.include, p)
	}
	for _, raw := range exclude {
		p, err := parseURLPattern(raw)
		errs = append(errs, err)
		s.exclude = append(s.exclude, p)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// contains reports whether a canonical URL is one of the crawl's pages.
func (s *scope) contains(u *url.URL) bool {
	if !s.covers(u) || s.excluded(u) {
		return false
	}
	if len(s.include) == 0 {
		return true
	}
	for _, p := range s.include {
		if p.match(u) {
			return true
		}
	}
	return false
}

// covers reports whether a seed's scope rule covers u, patterns aside.
func (s *scope) covers(u *url.URL) bool {
	o := origin(u)
	if s.origins[o] {
		return true
	}
	if len(s.hosts) > 0 || len(s.domains) > 0 {
		h := u.Hostname()
		if s.hosts[h] || len(s.domains) > 0 && s.domains[registrable(h)] {
			return true
		}
	}
	if ps := s.prefixes[o]; len(ps) > 0 {
		p := u.EscapedPath()
		for _, pre := range ps {
			if strings.HasPrefix(p, pre) {
				return true
			}
		}
	}
	return false
}

// excluded reports whether an exclude pattern matches u: it is fetched neither as a page nor as a requisite.
func (s *scope) excluded(u *url.URL) bool {
	for _, p := range s.exclude {
		if p.match(u) {
			return true
		}
	}
	return false
}

// pathPrefix is the scope of a prefix seed: its escaped path up to and including the last '/'.
func pathPrefix(u *url.URL) string {
	p := u.EscapedPath()
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return "/"
}

// registrable is a host's registrable domain (eTLD+1 by the public suffix list); an IP
// address, a public suffix itself or a single label is its own domain.
func registrable(host string) string {
	if net.ParseIP(host) != nil {
		return host
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}

// urlPattern is an include or exclude pattern: a robots.txt-style path pattern, for one origin
// or for any.
type urlPattern struct {
	origin string // "" for every origin
	path   robots.Pattern
}

// parseURLPattern reads "/path*pattern$" (any origin) or "scheme://host[:port]/path*pattern$".
func parseURLPattern(raw string) (urlPattern, error) {
	if strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "*") {
		return urlPattern{path: robots.CompilePattern(raw)}, nil
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return urlPattern{}, &invalid.Value{What: "pattern", Value: raw, Reason: "start it with / (any origin) or http(s)://host/"}
	}
	authority, path := rest, "/"
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	u, ok := extract.Canonical(&url.URL{Scheme: scheme, Host: authority})
	if !ok || strings.ContainsAny(authority, "*$?#@") {
		return urlPattern{}, &invalid.Value{What: "pattern", Value: raw, Reason: fmt.Sprintf("%q is not an http(s) origin", scheme+"://"+authority)}
	}
	return urlPattern{origin: origin(u), path: robots.CompilePattern(path)}, nil
}

// match reports whether the pattern matches a canonical URL.
func (p urlPattern) match(u *url.URL) bool {
	if p.origin != "" && origin(u) != p.origin {
		return false
	}
	return p.path.Match(robots.PathQuery(u))
}
