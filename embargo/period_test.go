package embargo

import (
	"testing"
	"time"
)

func TestParsePeriod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		want   Period
		wantOK bool
	}{
		{"w is a week", "w", Week, true},
		{"m is 31 days", "m", Month, true},
		{"q is 90 days", "q", Quarter, true},
		{"T83 Q is case-insensitive", "Q", Quarter, true},
		{"W upper case", "W", Week, true},
		{"M upper case", "M", Month, true},
		{"T87 empty", "", None, false},
		{"90 days spelled out", "90", None, false},
		{"T82 90d", "90d", None, false},
		{"qq", "qq", None, false},
		{"T88 q m", "q m", None, false},
		{"week", "week", None, false},
		{"T86 y", "y", None, false},
		{"untrimmed", " q", None, false},
		{"fullwidth q", "ｑ", None, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParsePeriod(tc.in)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("ParsePeriod(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestPeriodMethods(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		p        Period
		days     int
		duration time.Duration
		valid    bool
		str      string
	}{
		{"none", None, 0, 0, true, ""},
		{"week", Week, 7, 7 * 24 * time.Hour, true, "w"},
		{"month", Month, 31, 31 * 24 * time.Hour, true, "m"},
		{"quarter", Quarter, 90, 90 * 24 * time.Hour, true, "q"},
		{"not a draft period", Period(30), 30, 30 * 24 * time.Hour, false, ""},
		{"negative", Period(-7), -7, -7 * 24 * time.Hour, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.p.Days(); got != tc.days {
				t.Errorf("Days() = %d, want %d", got, tc.days)
			}
			if got := tc.p.Duration(); got != tc.duration {
				t.Errorf("Duration() = %v, want %v", got, tc.duration)
			}
			if got := tc.p.Valid(); got != tc.valid {
				t.Errorf("Valid() = %v, want %v", got, tc.valid)
			}
			if got := tc.p.String(); got != tc.str {
				t.Errorf("String() = %q, want %q", got, tc.str)
			}
		})
	}
}
