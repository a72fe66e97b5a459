package embargo

import "testing"

func TestRobotsExempt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"http://a.example/robots.txt", true},
		{"https://a.example:8443/robots.txt", true},
		{"https://a.example/robots.txt#x", true},
		{"https://a.example/news/a", false},
		{"https://a.example/robots.txt?x=1", false},
		{"https://a.example/robots.txt?", false},
		{"https://a.example/news/robots.txt", false},
		{"https://a.example/%72obots.txt", false},
		{"https://a.example/robots.txt/", false},
		{"https://a.example/ROBOTS.TXT", false},
		{"ftp://a.example/robots.txt", false},
		{"/robots.txt", false},
		{"https://u@a.example/robots.txt", false},
		{"::", false},
	} {
		if got := RobotsExempt(tc.url); got != tc.want {
			t.Errorf("RobotsExempt(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}
