package main

import (
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
)

// TestCrawlTraps runs the binary over a site of two crawler traps without end, /a/a/a/… self-links
// and /x/1/2/3/… depth links (docs/rules.md#d26): the crawl terminates quickly with a bounded
// number of pages, and the summary and the log report the trapped URLs. The limits are set by
// crawl.max_path_depth and crawl.max_path_repeats or their flags; 0 turns them off.
func TestCrawlTraps(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	o := crawlertest.NewServer(crawlertest.TrapSite())
	t.Cleanup(o.Close)
	tests := []struct {
		name   string
		yaml   string
		args   []string
		code   int
		stdout []string // in the summary
		stderr []string // in the log or error
		pages  int      // captures sealed, robots.txt aside
	}{
		{"the defaults", "", nil, 0,
			[]string{"pages        22 ", "traps        1 URLs too deep, 1 repeating a path segment, not followed"},
			[]string{"crawler trap: URLs with more path segments than the limit not followed", "limit=20",
				"crawler trap: URLs repeating a path segment not followed", "limit=2"}, 22},
		{"limits set by the config", "crawl:\n  max_path_depth: 5\n  max_path_repeats: 1\n", nil, 0,
			[]string{"pages        6 ", "traps        1 URLs too deep, 1 repeating"}, []string{"limit=5", "limit=1"}, 6},
		{"limits set by the flags", "", []string{"--max-path-depth", "5", "--max-path-repeats", "1"}, 0,
			[]string{"pages        6 ", "traps        1 URLs too deep, 1 repeating"}, []string{"limit=5", "limit=1"}, 6},
		{"off: only max_pages stops it", "", []string{"--max-path-depth", "0", "--max-path-repeats", "0", "--max-pages", "60"}, 0,
			[]string{"pages        60 "}, nil, 60},
		{"a negative limit", "crawl:\n  max_path_depth: -1\n", nil, 2, nil, []string{"crawl.max_path_depth"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := t.TempDir()
			start := time.Now()
			r := waitCrawl(t, crawlCmd(t, exe, data, []string{o.URL + "/"}, tc.yaml, append([]string{"--delay", "0s"}, tc.args...)...))
			took := time.Since(start)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%.3000s", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("summary lacks %q:\n%s", s, r.stdout)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%.3000s", s, r.stderr)
				}
			}
			if tc.code != 0 {
				return
			}
			got := capturesByURL(sealedCaptures(t, data, false))
			delete(got, o.URL+"/robots.txt")
			if len(got) != tc.pages {
				t.Errorf("%d URLs sealed, want %d", len(got), tc.pages)
			}
			if took > 30*time.Second {
				t.Errorf("the crawl took %s", took)
			}
			t.Logf("%s: %d pages in %s", tc.name, tc.pages, took.Round(time.Millisecond))
		})
	}
}
