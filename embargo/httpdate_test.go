package embargo

import (
	"testing"
	"time"
)

// date is a shorthand for a UTC instant in the tables.
func date(y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
}

// ref is the capture time the RFC 850 two-digit years are read against.
var ref = date(2026, time.March, 1, 0, 0, 0)

func TestParseHTTPDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		ref  time.Time
		want time.Time // zero: not an HTTP-date
	}{
		{"IMF-fixdate", "Sun, 06 Nov 1994 08:49:37 GMT", ref, date(1994, time.November, 6, 8, 49, 37)},
		{"RFC 850", "Sunday, 06-Nov-94 08:49:37 GMT", ref, date(1994, time.November, 6, 8, 49, 37)},
		{"asctime", "Sun Nov  6 08:49:37 1994", ref, date(1994, time.November, 6, 8, 49, 37)},
		{"asctime two-digit day", "Mon Nov 16 08:49:37 1994", ref, date(1994, time.November, 16, 8, 49, 37)},
		{"T175 IMF-fixdate", "Thu, 01 Jan 2026 00:00:00 GMT", ref, date(2026, time.January, 1, 0, 0, 0)},
		{"T179 RFC 850 this century", "Sunday, 01-Mar-26 00:00:00 GMT", ref, date(2026, time.March, 1, 0, 0, 0)},
		{"T180 asctime", "Sun Mar  1 00:00:00 2026", ref, date(2026, time.March, 1, 0, 0, 0)},
		{"T181 UTC is not GMT", "Sun, 01 Mar 2026 00:00:00 UTC", ref, time.Time{}},
		{"RFC 850 with UTC", "Sunday, 01-Mar-26 00:00:00 UTC", ref, time.Time{}},
		{"RFC 850 with PST", "Sunday, 01-Mar-26 00:00:00 PST", ref, time.Time{}},
		{"IMF-fixdate with offset", "Sun, 01 Mar 2026 00:00:00 +0000", ref, time.Time{}},
		{"T178 unparseable", "yesterday", ref, time.Time{}},
		{"empty", "", ref, time.Time{}},
		{"RFC 3339", "2026-03-01T00:00:00Z", ref, time.Time{}},
		{"day out of range", "Tue, 31 Feb 2026 00:00:00 GMT", ref, time.Time{}},
		{"hour out of range", "Sun, 01 Mar 2026 25:00:00 GMT", ref, time.Time{}},
		{"one-digit day in IMF-fixdate", "Sun, 1 Mar 2026 00:00:00 GMT", ref, time.Time{}},
		{"surrounding whitespace", "  Sun, 06 Nov 1994 08:49:37 GMT\t", ref, date(1994, time.November, 6, 8, 49, 37)},
		{"RFC 850 year 49 years ahead stays ahead", "Friday, 01-Jan-76 00:00:00 GMT", ref, date(2076, time.January, 1, 0, 0, 0)},
		{"RFC 850 more than 50 years ahead goes back a century", "Thursday, 31-Dec-76 00:00:00 GMT", ref, date(1976, time.December, 31, 0, 0, 0)},
		{"RFC 850 year 77 is last century", "Saturday, 01-Jan-77 00:00:00 GMT", ref, date(1977, time.January, 1, 0, 0, 0)},
		{"RFC 850 year 00", "Saturday, 01-Jan-00 00:00:00 GMT", ref, date(2000, time.January, 1, 0, 0, 0)},
		{"RFC 850 near a century end rolls forward", "Saturday, 01-Jan-01 00:00:00 GMT", date(2099, time.June, 1, 0, 0, 0), date(2101, time.January, 1, 0, 0, 0)},
		{"RFC 850 from a 1990s reference", "Monday, 01-Jan-30 00:00:00 GMT", date(1995, time.January, 1, 0, 0, 0), date(2030, time.January, 1, 0, 0, 0)},
		{"RFC 850 year 69 from 2026", "Wednesday, 01-Jan-69 00:00:00 GMT", ref, date(2069, time.January, 1, 0, 0, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParseHTTPDate(tc.in, tc.ref)
			if ok != !tc.want.IsZero() || !got.Equal(tc.want) {
				t.Fatalf("ParseHTTPDate(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, !tc.want.IsZero())
			}
			if ok && got.Location() != time.UTC {
				t.Errorf("ParseHTTPDate(%q) is in %v, want UTC", tc.in, got.Location())
			}
		})
	}
}

func TestLastModified(t *testing.T) {
	t.Parallel()
	jan := date(2026, time.January, 1, 0, 0, 0)
	tests := []struct {
		name   string
		values []string
		want   time.Time // zero: absent
	}{
		{"no line", nil, time.Time{}},
		{"one line", []string{"Thu, 01 Jan 2026 00:00:00 GMT"}, jan},
		{"T178 unparseable", []string{"yesterday"}, time.Time{}},
		{"T181 zone UTC", []string{"Sun, 01 Mar 2026 00:00:00 UTC"}, time.Time{}},
		{"two identical lines", []string{"Thu, 01 Jan 2026 00:00:00 GMT", "Thu, 01 Jan 2026 00:00:00 GMT"}, jan},
		{"same instant in two forms", []string{"Thu, 01 Jan 2026 00:00:00 GMT", "Thu Jan  1 00:00:00 2026"}, jan},
		{"two differing lines", []string{"Thu, 01 Jan 2026 00:00:00 GMT", "Fri, 02 Jan 2026 00:00:00 GMT"}, time.Time{}},
		{"three lines, last differs", []string{"Thu, 01 Jan 2026 00:00:00 GMT", "Thu, 01 Jan 2026 00:00:00 GMT", "Sat, 03 Jan 2026 00:00:00 GMT"}, time.Time{}},
		{"valid then invalid", []string{"Thu, 01 Jan 2026 00:00:00 GMT", "soon"}, time.Time{}},
		{"invalid then valid", []string{"soon", "Thu, 01 Jan 2026 00:00:00 GMT"}, time.Time{}},
		{"empty line", []string{""}, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := LastModified(tc.values, ref)
			if ok != !tc.want.IsZero() || !got.Equal(tc.want) {
				t.Errorf("LastModified(%q) = %v, %v; want %v, %v", tc.values, got, ok, tc.want, !tc.want.IsZero())
			}
		})
	}
}
