// Package embargo holds the pure arithmetic of archive embargoes: periods,
// HTTP-date parsing and the release-time rule of draft-nottingham-archive-embargo.
// It never reads a clock or a file: callers hand it facts and a "now".
package embargo

import (
	"strings"
	"time"
)

// Period is an embargo period in whole days; zero means no embargo.
type Period int

// The periods of draft-nottingham-archive-embargo-00 §2, as exact days of 24 h (docs/rules.md#d14).
const (
	None    Period = 0
	Week    Period = 7
	Month   Period = 31
	Quarter Period = 90
)

// ParsePeriod reads an Archive-Embargo value (w, m or q, any case); ok is false for anything else.
func ParsePeriod(v string) (p Period, ok bool) {
	switch strings.ToLower(v) {
	case "w":
		return Week, true
	case "m":
		return Month, true
	case "q":
		return Quarter, true
	}
	return None, false
}

// Days is the period's length in days.
func (p Period) Days() int { return int(p) }

// Duration is the period's length as exactly Days × 24 h.
func (p Period) Duration() time.Duration { return time.Duration(p) * 24 * time.Hour }

// Valid reports whether p is one of the periods the draft defines (None included).
func (p Period) Valid() bool {
	switch p {
	case None, Week, Month, Quarter:
		return true
	}
	return false
}

// String is the robots.txt token of the period ("w", "m", "q"), or "" for None.
func (p Period) String() string {
	switch p {
	case Week:
		return "w"
	case Month:
		return "m"
	case Quarter:
		return "q"
	}
	return ""
}
