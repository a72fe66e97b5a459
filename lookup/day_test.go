package lookup

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// releasesAnswer is the answer of /api/v1/releases as docs/formats.md gives it.
type releasesAnswer struct {
	Day       string `json:"day"`
	Embargoed int    `json:"embargoed"`
	Captures  []struct {
		URL       string `json:"url"`
		State     string `json:"state"`
		ReleaseAt string `json:"release_at"`
		Due       bool   `json:"due"`
	} `json:"captures"`
	ScannedLines int    `json:"scanned_lines"`
	NextCursor   string `json:"next_cursor"`
}

// TestReleasesAPI: /api/v1/releases lists the captures whose release day it is, released or
// not, a page at a time, and refuses what is not a day.
func TestReleasesAPI(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	tests := []struct {
		name, query string
		code        int
		embargoed   int
		urls        []string // over every page
		states      []string
		maxScanned  int // of the first page; 0: any
	}{
		{"a day ahead, found whole and the scan stops there", "day=2026-12-01", 200, 5,
			[]string{"https://example.com/tree/p00", "https://example.com/tree/p05", "https://example.com/tree/p10", "https://example.com/tree/p15", "https://example.com/tree/p20"},
			[]string{"embargoed"}, 26},
		{"paged by two", "day=2026-12-01&limit=2", 200, 5,
			[]string{"https://example.com/tree/p00", "https://example.com/tree/p05", "https://example.com/tree/p10", "https://example.com/tree/p15", "https://example.com/tree/p20"},
			[]string{"embargoed"}, 0},
		{"a day gone by: the released capture of the day", "day=2026-10-08", 200, 0, []string{"https://example.com/b"}, []string{"released"}, 0},
		{"a day ahead without releases costs no scan", "day=2026-12-10", 200, 0, nil, nil, -1},
		{"the last of the tree", "day=2026-12-20", 200, 1, []string{"https://example.com/treehouse"}, []string{"embargoed"}, 0},
		{"not a date", "day=2026-13-01", 400, 0, nil, nil, 0},
		{"no day", "limit=3", 400, 0, nil, nil, 0},
		{"bad limit", "day=2026-12-01&limit=0", 400, 0, nil, nil, 0},
		{"bad cursor", "day=2026-12-01&cursor=xyz", 400, 0, nil, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			target := "/api/v1/releases?" + tc.query
			var urls []string
			states := map[string]bool{}
			for page := 0; target != ""; page++ {
				if page == 10 {
					t.Fatal("more than 10 pages")
				}
				rec := get(t, s, target)
				if rec.Code != tc.code {
					t.Fatalf("%s: status %d, want %d: %s", target, rec.Code, tc.code, rec.Body)
				}
				if tc.code != 200 {
					if !strings.Contains(rec.Body.String(), `"error"`) {
						t.Errorf("no JSON error: %s", rec.Body)
					}
					return
				}
				var a releasesAnswer
				decode(t, rec.Body, &a)
				if a.Embargoed != tc.embargoed {
					t.Errorf("embargoed %d, want %d", a.Embargoed, tc.embargoed)
				}
				if page == 0 && (tc.maxScanned > 0 && a.ScannedLines > tc.maxScanned || tc.maxScanned < 0 && a.ScannedLines != 0) {
					t.Errorf("scanned %d lines", a.ScannedLines)
				}
				for _, c := range a.Captures {
					urls = append(urls, c.URL)
					states[c.State] = true
					if !strings.HasPrefix(c.ReleaseAt, strings.TrimPrefix(strings.Split(tc.query, "&")[0], "day=")) {
						t.Errorf("%s releases %s", c.URL, c.ReleaseAt)
					}
				}
				target = ""
				if a.NextCursor != "" {
					target = "/api/v1/releases?" + tc.query + "&cursor=" + url.QueryEscape(a.NextCursor)
				}
			}
			if !slices.Equal(urls, tc.urls) {
				t.Errorf("listed %v, want %v", urls, tc.urls)
			}
			var got []string
			for st := range states {
				got = append(got, st)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.states) {
				t.Errorf("states %v, want %v", got, tc.states)
			}
		})
	}
}

// TestReleasesOnBudget: a scan cut short by its budget goes on from its cursor and lists the
// same captures, once each, as one scan without a budget; across a reload the count found so
// far is not trusted.
func TestReleasesOnBudget(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	ix := s.ix.Load()
	for _, day := range []string{"2026-12-01", "2026-10-08", "2026-10-09", "2026-12-10"} {
		for _, budget := range []int{1, 3, 7, 1 << 20} {
			v := url.Values{"day": {day}}
			var urls []string
			for pages := 0; ; pages++ {
				if pages == 100 {
					t.Fatalf("%s, budget %d: more than 100 pages", day, budget)
				}
				q, err := parseDay(v, 2)
				if err != nil {
					t.Fatal(err)
				}
				res, err := ix.releasesOn(q, budget)
				if err != nil {
					t.Fatal(err)
				}
				for i := range res.captures {
					urls = append(urls, res.captures[i].url())
				}
				if res.next == "" {
					break
				}
				v.Set("cursor", res.next)
			}
			q, _ := parseDay(url.Values{"day": {day}}, maxLimit)
			whole, err := ix.releasesOn(q, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i := range whole.captures {
				want = append(want, whole.captures[i].url())
			}
			if !slices.Equal(urls, want) {
				t.Errorf("%s, budget %d: %v, want %v", day, budget, urls, want)
			}
		}
	}
	// A cursor of another generation: the count it carries is not used to stop early.
	q, _ := parseDay(url.Values{"day": {"2026-12-01"}}, 1)
	first, _ := ix.releasesOn(q, 1<<20)
	c, err := parseDayCursor(first.next)
	if err != nil {
		t.Fatal(err)
	}
	c.found, c.gen = 5, c.gen+1
	q.after, q.limit = c, 10
	rest, _ := ix.releasesOn(q, 1<<20)
	if len(rest.captures) != 4 {
		t.Errorf("after a reload the scan listed %d more captures, want 4", len(rest.captures))
	}
}

// TestDayPage: the day view lists the day's captures with their dates marked up, links the days
// around it, and says when a day has none.
func TestDayPage(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	tests := []struct {
		name, target string
		code         int
		want, not    []string
	}{
		{"a day ahead", "/?day=2026-12-01", 200, []string{
			`<h1 class="what">Releasing on <time datetime="2026-12-01">Tue 1 Dec 2026</time></h1>`,
			"5 captures under embargo have this release day", `href="/?url=https%3a%2f%2fexample.com%2ftree%2fp05"`,
			`embargo ends <time datetime="2026-12-01T12:00:00Z">2026-12-01 12:00:00 UTC</time>`,
			`<a href="/?day=2026-11-30">← Mon 30 Nov</a>`, `<a href="/?day=2026-12-02">Wed 2 Dec →</a>`,
		}, []string{"Next page", "Release calendar"}},
		{"paged", "/?day=2026-12-01&limit=2", 200, []string{`class="next" href="/?day=2026-12-01&amp;limit=2&amp;cursor=`}, nil},
		{"a day gone by", "/?day=2026-10-08", 200, []string{"Release day <time", "No capture under embargo has this release day", "https://example.com/b</a>",
			"embargo ended <time"}, nil},
		{"nothing that day", "/?day=2026-12-10", 200, []string{"Nothing this archive has made public has its release time on"}, nil},
		{"not a day", "/?day=tomorrow", 400, []string{`is not a date`, `<h1 class="what">`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := get(t, s, tc.target)
			if rec.Code != tc.code {
				t.Fatalf("status %d, want %d", rec.Code, tc.code)
			}
			checkPage(t, rec.Body.String(), tc.want, tc.not)
		})
	}
}
