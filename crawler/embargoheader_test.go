package crawler

import (
	"net/http"
	"testing"

	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/archivectl/archivectl/embargo"
)

func TestHeaderEmbargo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		lines  []string
		want   embargo.Period
		wantOK bool
	}{
		{"absent", nil, embargo.None, false},
		{"token w", []string{"w"}, embargo.Week, true},
		{"upper case as in robots.txt", []string{"Q"}, embargo.Quarter, true},
		{"parameters ignored", []string{"m;since=1"}, embargo.Month, true},
		{"a string is no token", []string{`"m"`}, embargo.None, false},
		{"unknown token", []string{"y"}, embargo.None, false},
		{"the robots.txt form 90d", []string{"90d"}, embargo.None, false},
		{"a list is no item", []string{"w, m"}, embargo.None, false},
		{"two lines make a list", []string{"w", "m"}, embargo.None, false},
		{"garbage", []string{"\x00;;"}, embargo.None, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{"Archive-Embargo": tc.lines}
			got, ok := headerEmbargo(h)
			if got != tc.want || ok != tc.wantOK {
				t.Fatalf("headerEmbargo(%q) = %v, %v; want %v, %v", tc.lines, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestPeriodSource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		on         bool
		robots     embargo.Period
		header     string
		want       embargo.Period
		wantSource string
	}{
		{"switch off: the header is ignored", false, embargo.Week, "q", embargo.Week, ""},
		{"longer header lengthens", true, embargo.Week, "q", embargo.Quarter, sourceHeader},
		{"shorter header never shortens", true, embargo.Quarter, "w", embargo.Quarter, sourceRobots},
		{"equal: robots.txt decided", true, embargo.Month, "m", embargo.Month, sourceRobots},
		{"header alone", true, embargo.None, "m", embargo.Month, sourceHeader},
		{"invalid header ignored", true, embargo.Week, "forever", embargo.Week, sourceRobots},
		{"neither", true, embargo.None, "", embargo.None, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &Crawl{cfg: Config{HeaderEmbargo: tc.on}}
			h := http.Header{}
			if tc.header != "" {
				h.Set("Archive-Embargo", tc.header)
			}
			got, src := c.period(robots.Decision{Allowed: true, Period: tc.robots}, h)
			if got != tc.want || src != tc.wantSource {
				t.Fatalf("period = %v from %q, want %v from %q", got, src, tc.want, tc.wantSource)
			}
		})
	}
}
