package embargo

import "time"

// ReleaseAt is when content may be republished: min(lastModified, firstSeen) + period.
// A zero lastModified means absent or unparseable; a future one never wins the min.
func ReleaseAt(lastModified, firstSeen time.Time, p Period) time.Time {
	start := firstSeen
	if !lastModified.IsZero() && lastModified.Before(start) {
		start = lastModified
	}
	return start.Add(p.Duration()).UTC()
}

// Releasable reports whether content with this release time may be public at now: releaseAt ≤ now
// (docs/rules.md#d14). It is the one release boundary: the store's due scan (as a key range), the
// release pass and its verify, and the lookup all decide by it.
func Releasable(releaseAt, now time.Time) bool { return !releaseAt.After(now) }
