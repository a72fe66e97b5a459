package main

import (
	"strings"
	"testing"

	"github.com/archivectl/archivectl/crawler/crawlertest"
)

// TestCrawlURLLengthLimit runs the binary over a page holding a 40 KB link, and with a 40 KB
// seed: the page is sealed and the link logged, counted and not followed; the seed is an error
// naming its line and the limit. The limit is set by crawl.max_url_length or --max-url-length.
func TestCrawlURLLengthLimit(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	long := "/" + strings.Repeat("x", 40<<10)
	mid := "/" + strings.Repeat("y", 300)
	o := crawlertest.NewServer(crawlertest.Pages(map[string]string{
		"/robots.txt": "",
		"/":           `<a href="` + long + `">long</a><a href="/ok">ok</a>`,
		"/mid":        `<a href="` + mid + `">300 bytes</a><a href="/ok">ok</a>`,
		"/ok":         "ok",
	}))
	t.Cleanup(o.Close)
	tests := []struct {
		name       string
		seed, yaml string
		args       []string
		code       int
		stdout     string   // in the summary
		stderr     []string // in the log or error
		sealed     []string // paths sealed
	}{
		{"a page holding a 40 KB link", o.URL + "/", "", nil, 0, "too long     1 URLs",
			[]string{"URLs longer than the limit: not followed", "limit=8192", "first_bytes=40"}, []string{"/", "/ok"}},
		{"the limit set by the config", o.URL + "/mid", "crawl:\n  max_url_length: 256\n", nil, 0, "too long     1 URLs",
			[]string{"limit=256"}, []string{"/mid", "/ok"}},
		{"the limit set by the flag", o.URL + "/mid", "", []string{"--max-url-length", "256"}, 0, "too long     1 URLs",
			[]string{"limit=256"}, []string{"/mid", "/ok"}},
		{"a 40 KB seed", o.URL + long, "", nil, 2, "",
			[]string{"line 2: ", "40", "the limit is 8192 (crawl.max_url_length)"}, nil},
		{"a limit above the ceiling", o.URL + "/", "crawl:\n  max_url_length: 40000\n", nil, 2, "",
			[]string{"crawl.max_url_length", "at most 16384"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := t.TempDir()
			r := waitCrawl(t, crawlCmd(t, exe, data, []string{tc.seed}, tc.yaml, append([]string{"--delay", "0s"}, tc.args...)...))
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%.3000s", r.code, tc.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tc.stdout) {
				t.Errorf("summary lacks %q:\n%s", tc.stdout, r.stdout)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%.3000s", s, r.stderr)
				}
			}
			for _, h := range o.Log() {
				if len(h.Path) > 256 {
					t.Errorf("a URL of %d bytes was requested", len(h.Path))
				}
			}
			if len(r.stderr) > 20000 {
				t.Errorf("stderr is %d bytes: a long URL is quoted whole", len(r.stderr))
			}
			if tc.code != 0 {
				return
			}
			got := capturesByURL(sealedCaptures(t, data, false))
			for _, p := range tc.sealed {
				if len(got[o.URL+p]) != 1 {
					t.Errorf("%s: %d captures, want 1", p, len(got[o.URL+p]))
				}
			}
		})
	}
}
