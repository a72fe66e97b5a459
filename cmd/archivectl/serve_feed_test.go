package main

import (
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/mmcdole/gofeed"
)

// TestServeFeeds: through the built binary, over a real crawl and release pass, the release feeds
// read with gofeed list the open site's released pages (their record links answer the record)
// and the embargoed site's upcoming ones (their record links answer 451), filter by host, never
// carry a body, and answer a conditional GET with 304.
func TestServeFeeds(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data, embargoed, open := crawledAndReleased(t)
	s := startServe(t, exe, "--data", data)
	read := func(path string) *gofeed.Feed {
		t.Helper()
		code, body := s.get(t, path, nil)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		if strings.Contains(body, "BODY OF") {
			t.Errorf("%s carries a captured body", path)
		}
		f, err := gofeed.NewParser().ParseString(body)
		if err != nil {
			t.Fatalf("%s: gofeed: %v\n%s", path, err, body)
		}
		return f
	}
	hostOf := func(u string) string { p, _ := url.Parse(u); return p.Host }
	for _, tc := range []struct {
		path     string
		site     string // every entry's URL is on this site (a robots.txt is never embargoed)
		atLeast  int
		recordOK int // what an entry's record link answers
	}{
		{"/feed/releases.atom", open, 2, http.StatusOK},
		{"/feed/releases.json?host=" + hostOf(open), open, 2, http.StatusOK},
		{"/feed/upcoming.atom?prefix=" + url.QueryEscape(embargoed), embargoed, 2, http.StatusUnavailableForLegalReasons},
		{"/feed/upcoming.json", embargoed, 2, http.StatusUnavailableForLegalReasons},
		{"/feed/releases.json?host=" + hostOf(embargoed), embargoed + "robots.txt", 1, http.StatusOK},
	} {
		f := read(tc.path)
		if len(f.Items) < tc.atLeast {
			t.Errorf("%s: %d entries, want at least %d", tc.path, len(f.Items), tc.atLeast)
		}
		for _, it := range f.Items {
			card, err := url.Parse(it.Link)
			u := card.Query().Get("url")
			if err != nil || !strings.HasPrefix(u, tc.site) && !(tc.recordOK == http.StatusOK && strings.HasSuffix(u, "/robots.txt")) || it.UpdatedParsed == nil {
				t.Errorf("%s: entry %s links to %s (updated %v), want a card of %s", tc.path, it.GUID, it.Link, it.UpdatedParsed, tc.site)
				continue
			}
			if !strings.HasPrefix(it.GUID, "tag:archivectl,2026:") {
				t.Errorf("%s: entry id %q", tc.path, it.GUID)
			}
			if len(it.Links) == 2 { // the JSON Feed's external_url: the record
				rec, _ := url.Parse(it.Links[1])
				if code, _ := s.get(t, rec.RequestURI(), nil); code != tc.recordOK {
					t.Errorf("%s: record %s answers %d, want %d", tc.path, it.Links[1], code, tc.recordOK)
				}
			}
		}
	}

	// The page advertises the feeds; a conditional GET of an unchanged feed is 304.
	if _, page := s.get(t, "/", nil); !strings.Contains(page, `<link rel="alternate" type="application/atom+xml" title="Recent releases (Atom)" href="/feed/releases.atom">`) {
		t.Errorf("the page does not advertise the releases feed")
	}
	resp, err := http.Get(s.base + "/feed/upcoming.atom")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	req, _ := http.NewRequest(http.MethodGet, s.base+"/feed/upcoming.atom", nil)
	req.Header.Set("If-None-Match", etag)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if etag == "" || resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match %q: %d, want 304", etag, resp.StatusCode)
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
