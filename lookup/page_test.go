package lookup

import (
	"encoding/xml"
	"html"
	"net/url"
	"regexp"
	"strconv"
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
		{"home: the archive at a glance", "/", 200, []string{
			`<form class="search"`, `name="url"`, `name="matchType" value="prefix"`,
			"<span class=\"label\">Released</span><strong>3</strong><small>captures, public byte for byte",
			"<span class=\"label\">Under embargo</span><strong>27</strong>",
			"Release calendar", `<svg xmlns="http://www.w3.org/2000/svg" class="calendar wide"`, `class="calendar tall"`,
			"Next releases", `<span class="date"><a href="/?day=2026-12-01"><time datetime="2026-12-01">Tue 1 Dec 2026</time></a></span><span class="count">5 captures</span><span class="when">in 2 days</span>`,
			`<span class="date"><a href="/?day=2026-12-20"><time datetime="2026-12-20">Sun 20 Dec 2026</time></a></span><span class="count">1 capture</span>`,
			`<a href="/?day=2026-12-01"><title>Tue 1 Dec 2026: 5 captures released</title>`, // a release day of the calendar opens its day view
			`<h1 class="what">The archive at a glance</h1>`, "<main>", "</main>",
			"Recently released", `href="/?url=https%3A%2F%2Fexample.com%2Fb">https://example.com/b</a>`,
			`href="/?matchType=prefix&amp;url=https%3A%2F%2Fexample.com%2F">browse example.com</a>`,
			`Today is <time datetime="2026-11-29T21:00:00Z">Sun 29 Nov 2026 21:00 UTC</time>`,
			`<span class="label">Next release</span><strong class="date"><time datetime="2026-12-01">Tue 1 Dec 2026</time></strong><small>in 2 days</small>`, // state.json has none: the first release day
		}, []string{"<script", "1 captures", `class="notice"`}},
		{"a URL with both states", "/?url=" + url.QueryEscape("https://www.example.com/a/"), 200, []string{
			"2 captures of", `<span class="badge embargoed">embargoed</span>`, `<span class="badge released">released</span>`,
			"2027-02-27 20:00:00 UTC", "in 89 days 23 hours", // countdown from 2026-11-29T21:00 to 2027-02-27T20:00
			`in 89 days 23 hours</span> · <span class="source">embargo set by the Archive-Embargo response header</span></dd>`,
			`released</span> · <span class="source">embargo set by robots.txt</span></dd>`,
			`<li>AI training: <span class="notallowed">not allowed</span></li>`, `<li>Search: <span class="allowed">allowed</span></li>`,
			`<li>AI use: <span class="unstated">no preference stated</span></li>`, "as stated: <code>train-ai=y, search=y</code>, <code>train-ai=y;note=&#34;as stated&#34;</code>, <code>x-label=n</code>",
			"sha256:aaaa", "Last-Modified", "Sun, 29 Nov 2026 19:00:00 GMT", `href="/api/v1/record?url=https%3A%2F%2Fexample.com%2Fa&amp;timestamp=20260801100000"`,
			`stroke="#c0392b"`, // the embargoed capture's release day is outlined in the calendar
			`<a href="/?matchType=prefix&amp;url=https%3A%2F%2Fexample.com%2F">Browse everything under`,
		}, []string{"Recently released", "no preference was stated"}},
		{"nothing stated is said once", "/?url=https://example.com/treehouse", 200, []string{
			"no preference stated <small>(neither robots.txt nor the response gave one)</small>", "1 capture of"}, []string{"AI training:", "embargo set by"}},
		{"empty search is the home page", "/?url=+", 200, []string{`name="url"`, "Release calendar", "Recently released"}, []string{`class="notice"`}},
		{"unknown URL links to the prefix views", "/?url=https://example.com/tree/p99/x", 404, []string{
			"has never been made public by this archive. Check the URL, or browse what it holds nearby:",
			`<a href="/?matchType=prefix&amp;url=https%3A%2F%2Fexample.com%2Ftree%2Fp99%2F">Everything under <span class="url">https://example.com/tree/p99/</span></a>`,
			`<a href="/?matchType=prefix&amp;url=https%3A%2F%2Fexample.com%2F">Everything under <span class="url">https://example.com/</span></a>`,
		}, []string{"try a shorter one"}},
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

// TestPageBrowse: the prefix view lists what lies under a URL a page at a time, following the
// API's cursors, each capture linked to its card and shown in its state at the server's clock.
func TestPageBrowse(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	target := "/?matchType=prefix&limit=10&url=" + url.QueryEscape("https://example.com/tree/")
	var urls []string
	for pages := 0; target != ""; pages++ {
		if pages == 5 {
			t.Fatal("more than 5 pages")
		}
		rec := get(t, s, target)
		body := rec.Body.String()
		if rec.Code != 200 || !strings.Contains(body, `Everything under <span class="url">https://example.com/tree/</span>`) ||
			!strings.Contains(body, `value="prefix" checked`) {
			t.Fatalf("%s: status %d\n%.3000s", target, rec.Code, body)
		}
		for _, m := range regexp.MustCompile(`<a class="url" href="/\?url=([^"]+)">`).FindAllStringSubmatch(body, -1) {
			u, _ := url.QueryUnescape(m[1])
			urls = append(urls, u)
		}
		if pages > 0 && !strings.Contains(body, "← First page") {
			t.Errorf("page %d has no link to the first page", pages+1)
		}
		target = ""
		if m := regexp.MustCompile(`<a class="next" href="([^"]+)">`).FindStringSubmatch(body); m != nil {
			target = html.UnescapeString(m[1])
		}
	}
	if len(urls) != 25 || urls[0] != "https://example.com/tree/p00" || urls[24] != "https://example.com/tree/p24" {
		t.Errorf("browsed %d URLs: %v", len(urls), urls)
	}
	body := get(t, s, "/?matchType=prefix&url=https://example.com/").Body.String()
	for _, want := range []string{`https://example.com/treehouse</a>`, `<li class="released"><a class="url" href="/?url=https%3a%2f%2fexample.com%2fa">`,
		"30 captures on this page", `<span class="badge embargoed">embargoed</span> captured <time datetime="2026-11-20T00:00:00Z">2026-11-20 00:00:00 UTC</time> · embargo ends <time datetime="2026-12-20T00:00:00Z">2026-12-20 00:00:00 UTC</time>, <span class="countdown">in 20 days 3 hours</span>`,
		`public since <time datetime="2026-11-29T00:00:00Z">2026-11-29 00:00:00 UTC</time> · embargo ended <time datetime="2026-08-08T10:00:00Z">2026-08-08 10:00:00 UTC</time>`} {
		if !strings.Contains(body, want) {
			t.Errorf("site root lacks %q", want)
		}
	}
	if body := get(t, s, "/?matchType=prefix&url=https://example.com/none/").Body.String(); !strings.Contains(body, "Nothing under") {
		t.Errorf("an empty prefix view does not say so")
	}
}

// TestStaticNoListing: /static/ serves its files, never a listing of the directory.
func TestStaticNoListing(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	for target, code := range map[string]int{"/static/": 404, "/static/style.css": 200, "/static/nothing.css": 404} {
		rec := get(t, s, target)
		if rec.Code != code || strings.Contains(rec.Body.String(), `<a href="style.css">`) {
			t.Errorf("%s: status %d %.200s, want %d", target, rec.Code, rec.Body, code)
		}
	}
	if rec := get(t, s, "/static/style.css"); rec.Header().Get("Content-Type") != "text/css; charset=utf-8" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("stylesheet answered with %v", rec.Header())
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
	days := []dayCount{{day("2026-11-30"), 3}, {day("2026-12-24"), 12}, {day("2026-12-25"), 1}, {day("2027-06-01"), 5}}
	for _, wide := range []bool{true, false} {
		svg := calendarSVG(days, testNow, map[time.Time]bool{day("2026-12-24"): true}, wide)
		if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
			t.Fatalf("wide %v: not well-formed XML: %v", wide, err)
		}
		if n := strings.Count(svg, "<title>"); n != 7*calWeeks {
			t.Errorf("wide %v: %d day squares, want %d", wide, n, 7*calWeeks)
		}
		for _, want := range []string{
			"Mon 30 Nov 2026: 3 captures released", "Thu 24 Dec 2026: 12 captures released", "Fri 25 Dec 2026: 1 capture released",
			"Tue 1 Dec 2026: no releases", "Sun 29 Nov 2026: no releases (today)",
			"16 captures due in these 14 weeks; 5 more after", `fill="#08306b" stroke="#c0392b"`, // the busiest day, marked
			`font-weight="bold" fill="#fff">12</text>`, // its count, readable on its shade
		} {
			if !strings.Contains(svg, want) {
				t.Errorf("wide %v: calendar lacks %q", wide, want)
			}
		}
		for _, size := range regexp.MustCompile(`font-size="(\d+)"`).FindAllStringSubmatch(svg, -1) {
			if n, _ := strconv.Atoi(size[1]); n < 12 {
				t.Errorf("wide %v: text of %d px", wide, n)
			}
		}
		w, h := svgSize(t, svg)
		switch {
		case wide && (w < 2*282 || h < 2*188): // at least twice the old 282×188 calendar
			t.Errorf("wide calendar is %d×%d", w, h)
		case !wide && w > 390-2*14: // fits a phone's width with the page's margins
			t.Errorf("tall calendar is %d wide", w)
		}
	}
	if svg := calendarSVG([]dayCount{{day("2026-12-01"), 1}}, testNow, nil, true); !strings.Contains(svg, ">1 capture due in these 14 weeks<") ||
		!strings.Contains(svg, "Release calendar: 1 capture due in the 14 weeks") {
		t.Errorf("one capture is not written in the singular")
	}
}

// svgSize returns the width and height attributes of an svg element.
func svgSize(t *testing.T, svg string) (w, h int) {
	t.Helper()
	m := regexp.MustCompile(`^<svg [^>]*width="(\d+)" height="(\d+)"`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no size in %.100s", svg)
	}
	w, _ = strconv.Atoi(m[1])
	h, _ = strconv.Atoi(m[2])
	return w, h
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
