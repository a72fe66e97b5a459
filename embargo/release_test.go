package embargo

import (
	"testing"
	"time"
)

// TestReleaseAt runs docs/rules.md#conformance-release-time: Last-Modified is parsed as the crawler would (absent or
// unparseable ⇒ zero), first-observed comes from the index per (URL, payload digest) (docs/rules.md#d7).
func TestReleaseAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		lastModified []string // the response's Last-Modified field lines
		firstSeen    time.Time
		period       Period
		want         time.Time
		dueAt        time.Time // a release pass at this time publishes the capture
	}{
		{"T175 old Last-Modified: due at once", []string{"Thu, 01 Jan 2026 00:00:00 GMT"}, date(2026, time.March, 1, 0, 0, 0), Week,
			date(2026, time.January, 8, 0, 0, 0), date(2026, time.March, 1, 0, 0, 0)},
		{"T176 absent Last-Modified", nil, date(2026, time.March, 1, 12, 0, 0), Quarter,
			date(2026, time.May, 30, 12, 0, 0), date(2026, time.May, 30, 12, 0, 0)},
		{"T177 future Last-Modified never wins", []string{"Fri, 01 Jan 2027 00:00:00 GMT"}, date(2026, time.March, 1, 12, 0, 0), Month,
			date(2026, time.April, 1, 12, 0, 0), date(2026, time.April, 1, 12, 0, 0)},
		{"T178 unparseable Last-Modified", []string{"yesterday"}, date(2026, time.February, 1, 0, 0, 0), Month,
			date(2026, time.March, 4, 0, 0, 0), date(2026, time.March, 4, 0, 0, 0)},
		{"T179 RFC 850 Last-Modified", []string{"Sunday, 01-Mar-26 00:00:00 GMT"}, date(2026, time.March, 10, 0, 0, 0), Week,
			date(2026, time.March, 8, 0, 0, 0), date(2026, time.March, 10, 0, 0, 0)},
		{"T180 asctime Last-Modified", []string{"Sun Mar  1 00:00:00 2026"}, date(2026, time.March, 10, 0, 0, 0), Week,
			date(2026, time.March, 8, 0, 0, 0), date(2026, time.March, 10, 0, 0, 0)},
		{"T181 UTC zone is not an HTTP-date", []string{"Sun, 01 Mar 2026 00:00:00 UTC"}, date(2026, time.March, 10, 0, 0, 0), Week,
			date(2026, time.March, 17, 0, 0, 0), date(2026, time.March, 17, 0, 0, 0)},
		{"T182 same digest first seen earlier: recapture due at once", nil, date(2026, time.January, 1, 0, 0, 0), Quarter,
			date(2026, time.April, 1, 0, 0, 0), date(2026, time.June, 1, 0, 0, 0)},
		{"T183 new digest starts anew", nil, date(2026, time.June, 1, 0, 0, 0), Week,
			date(2026, time.June, 8, 0, 0, 0), date(2026, time.June, 8, 0, 0, 0)},
		{"T185 no valid Archive-Embargo: due at capture", nil, date(2026, time.June, 1, 9, 30, 0), None,
			date(2026, time.June, 1, 9, 30, 0), date(2026, time.June, 1, 9, 30, 0)},
		{"several differing Last-Modified lines count as absent", []string{"Thu, 01 Jan 2026 00:00:00 GMT", "Fri, 02 Jan 2026 00:00:00 GMT"},
			date(2026, time.March, 1, 0, 0, 0), Week, date(2026, time.March, 8, 0, 0, 0), date(2026, time.March, 8, 0, 0, 0)},
		{"Last-Modified equal to first seen", []string{"Sun, 01 Mar 2026 00:00:00 GMT"}, date(2026, time.March, 1, 0, 0, 0), Month,
			date(2026, time.April, 1, 0, 0, 0), date(2026, time.April, 1, 0, 0, 0)},
		{"first seen in another zone is reported in UTC", nil, time.Date(2026, time.March, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600)), Week,
			date(2026, time.March, 8, 0, 0, 0), date(2026, time.March, 8, 0, 0, 0)},
		{"Last-Modified years ago under a quarter embargo", []string{"Mon, 01 Jan 2018 00:00:00 GMT"}, date(2026, time.November, 29, 0, 0, 0), Quarter,
			date(2018, time.April, 1, 0, 0, 0), date(2026, time.November, 29, 0, 0, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lm, _ := LastModified(tc.lastModified, tc.firstSeen)
			got := ReleaseAt(lm, tc.firstSeen, tc.period)
			if !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Fatalf("ReleaseAt(%v, %v, %v) = %v, want %v (UTC)", lm, tc.firstSeen, tc.period, got, tc.want)
			}
			if !Releasable(got, tc.dueAt) {
				t.Errorf("Releasable(%v, %v) = false, want true", got, tc.dueAt)
			}
			if before := got.Add(-time.Nanosecond); Releasable(got, before) {
				t.Errorf("Releasable(%v, %v) = true one instant before release", got, before)
			}
		})
	}
}

// TestReleasable checks the boundary of docs/rules.md#d14: releaseAt ≤ now.
func TestReleasable(t *testing.T) {
	t.Parallel()
	at := date(2026, time.April, 1, 12, 0, 0)
	tests := []struct {
		name string
		now  time.Time
		want bool
	}{
		{"T184 now equals release time", at, true},
		{"one nanosecond before", at.Add(-time.Nanosecond), false},
		{"one second before", at.Add(-time.Second), false},
		{"a day after", at.Add(24 * time.Hour), true},
		{"same instant in another zone", at.In(time.FixedZone("EST", -5*3600)), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Releasable(at, tc.now); got != tc.want {
				t.Errorf("Releasable(%v, %v) = %v, want %v", at, tc.now, got, tc.want)
			}
		})
	}
}
