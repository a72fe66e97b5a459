package lookup

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/embargo"
)

// queryValues parses a raw query string strictly: a parameter whose escapes do not decode (a
// "%zz" in the url), or a ";" separator, is an error naming the parameter, never a parameter
// silently dropped.
func queryValues(raw string) (url.Values, error) {
	v, err := url.ParseQuery(raw)
	if err == nil {
		return v, nil
	}
	for pair := range strings.SplitSeq(raw, "&") {
		k, val, _ := strings.Cut(pair, "=")
		name, kerr := url.QueryUnescape(k)
		if kerr != nil || strings.Contains(k, ";") {
			return nil, fmt.Errorf("the query string has a parameter name that is not valid percent-encoding: %q", trunc(k, 60))
		}
		if _, verr := url.QueryUnescape(val); verr != nil || strings.Contains(val, ";") {
			what := fmt.Sprintf("the %s parameter", name)
			if name == "url" {
				what = "the url parameter is not a valid URL:"
			}
			return nil, fmt.Errorf("%s %q is not valid percent-encoding (a %% must start %%XX, and ; must be %%3B); percent-encode the whole value", what, trunc(val, 200))
		}
	}
	return nil, fmt.Errorf("the query string is not valid percent-encoding: %w", err)
}

// checkURL refuses a URL that does not parse, or whose port is not a TCP port: neither can have
// been captured.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%q is not a valid URL (%v); give one like https://example.com/page", raw, err)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%q has port %s, which is not a port from 1 to 65535; give a URL like https://example.com/page", raw, p)
		}
	}
	return nil
}

// markDue marks, in place, the captures of one answer that are due at now: only a tombstone is
// public and its release time has passed, so the next release pass publishes them. A capture's
// state is what the public side holds (released when a released line exists, whatever the
// clock); now only tells a due tombstone from one still waiting.
func markDue(cs []capture, now time.Time) []capture {
	for i := range cs {
		cs[i].due = !cs[i].released && embargo.Releasable(time.Unix(0, cs[i].releaseAt), now)
	}
	return cs
}
