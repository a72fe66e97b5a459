package lookup

import (
	"encoding/xml"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestPage(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	tests := []struct {
		name, target string
		code         int
		want, not    []string
	}{
		{"front page", "/", 200, []string{`<form class="search"`, `name="url"`, "Release calendar", "<svg", "Next release days"}, []string{"<script"}},
		{"a URL with both states", "/?url=" + url.QueryEscape("https://www.example.com/a/"), 200, []string{
			"2 captures of", `<span class="badge embargoed">embargoed</span>`, `<span class="badge released">released</span>`,
			"2027-02-27 20:00:00 UTC", "in 89 days 23 hours", // countdown from 2026-11-29T21:00 to 2027-02-27T20:00
			"AI training: <span class=\"notallowed\">not allowed</span>", "Search: <span class=\"allowed\">allowed</span>",
			"AI use: <span class=\"\">no preference stated</span>",
			"sha256:aaaa", "Last-Modified", "Sun, 29 Nov 2026 19:00:00 GMT", `href="/api/v1/record?url=https%3A%2F%2Fexample.com%2Fa&amp;timestamp=20260801100000"`,
			`stroke="#c0392b"`, // the embargoed capture's release day is outlined in the calendar
		}, nil},
		{"empty search is the front page", "/?url=+", 200, []string{`name="url"`, "Release calendar"}, []string{`class="error"`}},
		{"unknown URL", "/?url=https://example.com/none", 404, []string{"has never been made public"}, nil},
		{"bad URL", "/?url=ftp://x", 400, []string{"is not an absolute http(s) URL"}, nil},
		{"markup in the query is escaped", "/?url=" + url.QueryEscape(`https://example.com/"><script>alert(1)</script>`), 404, []string{"&lt;script&gt;"}, []string{"<script>alert"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := get(t, s, tc.target)
			if rec.Code != tc.code {
				t.Fatalf("status %d, want %d", rec.Code, tc.code)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			body := rec.Body.String()
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(body, n) {
					t.Errorf("page has %q", n)
				}
			}
		})
	}
}

func TestCountdown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		d    time.Duration
		want string
	}{
		{"past", -time.Hour, "due now: public after the next release pass"},
		{"exactly now", 0, "due now: public after the next release pass"},
		{"seconds", 20 * time.Second, "in 1 minute"},
		{"minutes", 5*time.Minute + 40*time.Second, "in 6 minutes"},
		{"hours", 3*time.Hour + time.Minute, "in 3 hours 1 minute"},
		{"one day", 24 * time.Hour, "in 1 day 0 hours"},
		{"quarter", 90*24*time.Hour - time.Hour, "in 89 days 23 hours"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := countdown(tc.d); got != tc.want {
				t.Errorf("countdown(%v) = %q, want %q", tc.d, got, tc.want)
			}
		})
	}
}

func TestUsageInWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		usage []string
		want  string
	}{
		{"none stated", nil, "AI training: no preference stated; AI use: no preference stated; Search: no preference stated"},
		{"train-ai=n", []string{"train-ai=n"}, "AI training: not allowed; AI use: no preference stated; Search: no preference stated"},
		{"all three", []string{"search=y", "ai-use=n", "train-ai=y"}, "AI training: allowed; AI use: not allowed; Search: allowed"},
		{"unknown label kept", []string{"tdm=n"}, "AI training: no preference stated; AI use: no preference stated; Search: no preference stated; tdm: not allowed (a label this archive does not know)"},
		{"odd value", []string{"train-ai=maybe"}, "AI training: no preference stated; AI use: no preference stated; Search: no preference stated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var parts []string
			for _, l := range usageInWords(tc.usage) {
				parts = append(parts, l.Category+": "+l.Preference)
			}
			if got := strings.Join(parts, "; "); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestCalendarSVG(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	days := []dayCount{{day("2026-11-30"), 3}, {day("2026-12-24"), 12}, {day("2027-06-01"), 5}}
	svg := calendarSVG(days, testNow, map[time.Time]bool{day("2026-12-24"): true})
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	rects := regexp.MustCompile(`<rect [^>]*><title>`).FindAllString(svg, -1)
	if len(rects) != 7*calWeeks {
		t.Errorf("%d day squares, want %d", len(rects), 7*calWeeks)
	}
	for _, want := range []string{
		"Mon 30 Nov 2026: 3 captures released", "Thu 24 Dec 2026: 12 captures released", "Tue 1 Dec 2026: no releases",
		"15 captures due in these 14 weeks; 5 more after", `fill="#08306b" stroke="#c0392b"`, // the busiest day, marked
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("calendar lacks %q", want)
		}
	}
}

func TestCalendarJSON(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	var got calendarJSON
	decode(t, get(t, s, "/api/v1/calendar").Body, &got)
	if got.Embargoed != 27 || got.Released != 3 || got.Generation != 1 {
		t.Errorf("counts %+v", got)
	}
	total := 0
	for _, d := range got.Days {
		total += d.Captures
	}
	if total != 27 || got.Days[0].Date != "2026-12-01" {
		t.Errorf("days %+v: %d captures, want 27 from 2026-12-01", got.Days, total)
	}
}
