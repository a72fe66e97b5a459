package embargo_test

import (
	"fmt"
	"time"

	"github.com/archivectl/archivectl/embargo"
)

// A page first seen on 1 March under Archive-Embargo: m, last modified a week earlier: the
// embargo runs from the earlier of the two, and the page may be public from the release time on.
func ExampleReleaseAt() {
	period, _ := embargo.ParsePeriod("m")
	firstSeen := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	lastModified, _ := embargo.ParseHTTPDate("Sun, 22 Feb 2026 08:00:00 GMT", firstSeen)
	at := embargo.ReleaseAt(lastModified, firstSeen, period)
	fmt.Println(period.Duration(), at.Format(time.RFC3339))
	fmt.Println(embargo.Releasable(at, at.Add(-time.Nanosecond)), embargo.Releasable(at, at))
	// Output:
	// 744h0m0s 2026-03-25T08:00:00Z
	// false true
}

// Only an origin's own /robots.txt may be archived as robots.txt evidence, outside every embargo.
func ExampleRobotsExempt() {
	fmt.Println(embargo.RobotsExempt("https://example.com/robots.txt"), embargo.RobotsExempt("https://example.com/news/a"))
	// Output: true false
}
