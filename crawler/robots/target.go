package robots

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// Target is a URL to evaluate as a person wrote it: its origin, and its path and query taken
// as written (evaluation normalises them).
type Target struct {
	Raw       string // the URL as given
	Origin    string // scheme://host[:port]; "" for a bare path
	PathQuery string // "/" when the URL has no path; the fragment dropped
}

// The reasons ParseTarget gives, wrapped in an error that names the URL.
var (
	ErrNotAbsolute  = errors.New("not absolute")
	ErrNoHost       = errors.New("no host")
	ErrNotFetchable = errors.New("only http and https are fetched")
)

// ParseTarget checks one URL to evaluate. The path and query are taken as written (RFC 9309
// normalisation applies later), so a stray "%" in them is no error. With bare set (the
// robots.txt is at hand) a bare path ("/a?b") is accepted too, and any scheme; without it
// the URL must be http or https, since its origin's robots.txt is fetched.
func ParseTarget(raw string, bare bool) (Target, error) {
	t := Target{Raw: raw}
	rest, _, _ := strings.Cut(raw, "#")
	if bare && strings.HasPrefix(rest, "/") && !strings.HasPrefix(rest, "//") {
		t.PathQuery = rest
		return t, nil
	}
	scheme, hier, ok := strings.Cut(rest, "://")
	if !ok {
		return t, fmt.Errorf("invalid URL %q: %w", raw, ErrNotAbsolute)
	}
	authority := hier
	if i := strings.IndexAny(hier, "/?"); i >= 0 {
		authority, t.PathQuery = hier[:i], hier[i:]
	}
	if !strings.HasPrefix(t.PathQuery, "/") {
		t.PathQuery = "/" + t.PathQuery
	}
	u, err := url.Parse(scheme + "://" + authority)
	if err != nil {
		return t, fmt.Errorf("invalid URL %q: %w", raw, urlError(err))
	}
	if u.Host == "" {
		return t, fmt.Errorf("invalid URL %q: %w", raw, ErrNoHost)
	}
	if !bare && u.Scheme != "http" && u.Scheme != "https" {
		return t, fmt.Errorf("cannot fetch robots.txt for %q: %w", raw, ErrNotFetchable)
	}
	t.Origin = Origin(u)
	return t, nil
}

// urlError drops net/url's repetition of the URL from its error.
func urlError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// ReadPolicy parses a robots.txt from r, reading at most what NewPolicy uses (plus one byte
// to tell a cut line).
func ReadPolicy(r io.Reader) (*Policy, error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	return NewPolicy(body), nil
}
