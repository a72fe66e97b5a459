package fetch

import (
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		v    string
		want time.Duration
		ok   bool
	}{
		{"seconds", "120", 2 * time.Minute, true},
		{"seconds among spaces", " 7 ", 7 * time.Second, true},
		{"zero", "0", 0, true},
		{"capped at 2^31 seconds", "99999999999999", (1 << 31) * time.Second, true},
		{"HTTP-date", "Sun, 29 Nov 2026 12:00:30 GMT", 30 * time.Second, true},
		{"past date", "Sun, 29 Nov 2026 11:00:00 GMT", 0, true},
		{"absent", "", 0, false},
		{"negative", "-5", 0, false},
		{"junk", "soon", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := RetryAfter(tc.v, now)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("RetryAfter(%q) = %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
			}
		})
	}
}
