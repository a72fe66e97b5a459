package crawler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
)

func TestCheckPath(t *testing.T) {
	t.Parallel()
	deep := "http://a.example" + strings.Repeat("/x", 20)
	numbered := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "/%d", i)
		}
		return "http://a.example" + b.String()
	}
	tests := []struct {
		url            string
		depth, repeats int
		want           trapRule
	}{
		{"http://a.example/", 20, 2, trapNone},
		{"http://a.example/a/a", 20, 2, trapNone},
		{"http://a.example/a/a/", 20, 2, trapNone}, // segments a, a, "": two in a row
		{"http://a.example/a/a/a", 20, 2, trapRepeats},
		{"http://a.example/a/a/a/", 20, 2, trapRepeats},
		{"http://a.example/a/b/a/b/a/b", 20, 2, trapNone}, // not in a row
		{"http://a.example/x////y", 20, 2, trapRepeats},   // the empty segment counts too
		{"http://a.example/a/a/a", 20, 0, trapNone},       // 0: off
		{"http://a.example/a/a/a", 20, 3, trapNone},
		{"http://a.example/p?q=/a/a/a/a", 20, 2, trapNone}, // the query does not count
		{numbered(20), 20, 2, trapNone},
		{numbered(21), 20, 2, trapDepth},
		{numbered(21), 0, 2, trapNone},
		{numbered(19) + "/", 20, 2, trapNone}, // the '/' characters count: 20
		{numbered(20) + "/", 20, 2, trapDepth},
		{deep, 20, 2, trapRepeats},
		{deep, 19, 2, trapDepth}, // depth is checked first
	}
	for _, tc := range tests {
		rule, err := checkPath(tc.url, tc.depth, tc.repeats)
		if rule != tc.want || (err != nil) != (tc.want != trapNone) || err != nil && !errors.Is(err, ErrCrawlerTrap) {
			t.Errorf("checkPath(%.60s, %d, %d) = %v, %v; want %v", tc.url, tc.depth, tc.repeats, rule, err, tc.want)
		}
	}
}

// TestCrawlTraps crawls a site of two traps without end, /a/a/a/… and /x/1/2/3/…: with the
// default rules the crawl ends with a bounded number of pages, the trapped links are logged and
// counted; with both rules off it would go on (MaxPages stops it here).
func TestCrawlTraps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		depth, repeats     int
		maxPages           int
		pages              int // sealed: "/", /ok, /a/, /a/a/, /x/1/ … /x/1/…/19/
		tooDeep, repeating int
	}{
		{"defaults", DefaultMaxPathDepth, DefaultMaxPathRepeats, 0, 4 + 18, 1, 1},
		{"tighter", 5, 1, 0, 3 + 3, 1, 1},
		{"off", 0, 0, 200, 200, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := newOrigin(t, crawlertest.TrapSite())
			arch := &fakeArchive{}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			sum, log, err := crawlInto(ctx, t, Config{Seeds: seedURLs(t, o.URL+"/"), MaxPathDepth: tc.depth, MaxPathRepeats: tc.repeats, MaxPages: tc.maxPages}, arch)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Pages != tc.pages || sum.TooDeep != tc.tooDeep || sum.Repeating != tc.repeating {
				t.Errorf("pages %d, too deep %d, repeating %d; want %d, %d, %d", sum.Pages, sum.TooDeep, sum.Repeating, tc.pages, tc.tooDeep, tc.repeating)
			}
			if tc.tooDeep > 0 && !strings.Contains(log, "crawler trap: URLs with more path segments than the limit not followed") ||
				tc.repeating > 0 && !strings.Contains(log, "crawler trap: URLs repeating a path segment not followed") {
				t.Errorf("the trapped links are not logged:\n%.3000s", log)
			}
			var b strings.Builder
			sum.WriteTo(&b)
			if tc.tooDeep > 0 && !strings.Contains(b.String(), "traps        1 URLs too deep, 1 repeating a path segment, not followed") {
				t.Errorf("summary:\n%s", b.String())
			}
		})
	}
	if err := (Config{MaxPathDepth: -1, MaxPathRepeats: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "max path depth") || !strings.Contains(err.Error(), "max path repeats") {
		t.Errorf("negative limits: %v", err)
	}
}
