package embargo

import (
	"strings"
	"time"
)

// The three HTTP-date forms of RFC 9110 §5.6.7.
const (
	imfFixdate = "Mon, 02 Jan 2006 15:04:05 GMT"
	rfc850     = "Monday, 02-Jan-06 15:04:05 GMT"
	asctime    = "Mon Jan _2 15:04:05 2006"
)

// ParseHTTPDate parses an RFC 9110 HTTP-date in any of its three forms, GMT only (docs/rules.md#d15).
// An RFC 850 two-digit year more than 50 years after ref is read as the most recent past
// year with those digits (RFC 9110 §5.6.7); pass the capture time as ref.
func ParseHTTPDate(s string, ref time.Time) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(imfFixdate, s); err == nil {
		return t.UTC(), true
	}
	if t, err := time.Parse(asctime, s); err == nil {
		return t.UTC(), true
	}
	if t, err := time.Parse(rfc850, s); err == nil {
		// time.Parse maps 69..99 to 19xx and 00..68 to 20xx; RFC 9110 instead asks for the
		// most recent year with those digits whose timestamp is not more than 50 years after ref.
		at := func(y int) time.Time {
			return time.Date(y, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
		}
		limit := ref.UTC().AddDate(50, 0, 0)
		y := ref.UTC().Year()/100*100 + t.Year()%100
		switch {
		case at(y).After(limit):
			y -= 100
		case !at(y + 100).After(limit):
			y += 100
		}
		return at(y), true
	}
	return time.Time{}, false
}

// LastModified returns the instant stated by a response's Last-Modified field lines.
// It is absent (ok false) when there is no line, a value is not an HTTP-date, or lines disagree (docs/rules.md#d15).
func LastModified(values []string, ref time.Time) (t time.Time, ok bool) {
	for i, v := range values {
		u, good := ParseHTTPDate(v, ref)
		if !good || (i > 0 && !u.Equal(t)) {
			return time.Time{}, false
		}
		t = u
	}
	return t, len(values) > 0
}
