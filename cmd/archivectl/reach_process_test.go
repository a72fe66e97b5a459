package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/public"
)

// The crawler's reach through the binary, on loopback origins: page requisites across
// origins under their own policies, a domain scope, a sitemap, the header embargo.

// TestCrawlRequisitesEmbargoedByTheirOrigin: a page on origin a (robots.txt: a week's embargo)
// embeds an image and a stylesheet from origin b (a month's), whose stylesheet pulls a font from
// origin c, which disallows it. b's requisites are sealed with b's 31 days and, their URLs read
// from a's page under embargo, are withheld for it (docs/rules.md#d27): no tombstone, no URL
// under public/, until their release; c's font is never requested, a's page is released after
// its own 7 days; every origin's log shows robots.txt first and one request at a time, spaced
// by the delay.
func TestCrawlRequisitesEmbargoedByTheirOrigin(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	c := crawlertest.NewServer(crawlertest.Pages(map[string]string{"/robots.txt": "User-agent: *\nDisallow: /fonts/\n", "/fonts/f.woff2": "MARK-C-FONT"}))
	defer c.Close()
	b := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nArchive-Embargo: m\n"))
		case "/style.css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprintf(w, "/* MARK-B-CSS */ @font-face{font-family:F;src:url(%s/fonts/f.woff2)}", c.URL)
		case "/img.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("MARK-B-IMG"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer b.Close()
	a := crawlertest.NewServer(crawlertest.Pages(map[string]string{
		"/robots.txt": "User-agent: *\nArchive-Embargo: w\n",
		"/":           fmt.Sprintf(`<link rel=stylesheet href="%[1]s/style.css"><img src="%[1]s/img.png"> MARK-A-PAGE`, b.URL),
	}))
	defer a.Close()
	data := t.TempDir()
	const delay = 100 * time.Millisecond
	start := time.Now().UTC()
	r := waitCrawl(t, crawlCmd(t, exe, data, []string{a.URL + "/"}, "", "--delay", delay.String()))
	if r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "requisites   2\n") {
		t.Errorf("summary does not count 2 requisites:\n%s", r.stdout)
	}
	// a's /sitemap.xml (404) is read by default; b and c are requisite origins: none read there.
	want := map[string][]string{"a": {"/robots.txt", "/", "/sitemap.xml"}, "b": {"/robots.txt", "/style.css", "/img.png"}, "c": {"/robots.txt"}}
	for name, o := range map[string]*crawlertest.Server{"a": a, "b": b, "c": c} {
		got := o.Paths()
		if len(got) == 0 || got[0] != "/robots.txt" || !slices.Equal(sortedStrings(got), sortedStrings(want[name])) {
			t.Errorf("%s requested %v, want robots.txt first, then %v", name, got, want[name][1:])
		}
		if err := o.CheckPolite(delay); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	caps := capturesByURL(sealedCaptures(t, data, false))
	page := caps[a.URL+"/"]
	if len(page) != 1 || page[0].entry.Period != 7 {
		t.Fatalf("a's page: %+v, want one capture under a week's embargo", page)
	}
	for _, p := range []string{"/style.css", "/img.png"} {
		cs := caps[b.URL+p]
		if len(cs) != 1 || cs[0].entry.Period != 31 || cs[0].facts["embargo_days"] != "31" {
			t.Fatalf("b%s: %+v, want one capture under b's 31 days", p, cs)
		}
		if cs[0].facts["embargo_source"] != "requisite" {
			t.Errorf("b%s: embargo_source %q, want requisite: withheld for a's page", p, cs[0].facts["embargo_source"])
		}
		if cs[0].facts["requisite_of"] != a.URL+"/" || cs[0].facts["requisite_of_id"] != page[0].entry.ID {
			t.Errorf("b%s: requisite of %v %v, want %s %s", p, cs[0].facts["requisite_of"], cs[0].facts["requisite_of_id"], a.URL+"/", page[0].entry.ID)
		}
	}
	// Day 6: a's page is a tombstone, b's requisites nowhere; day 8: a's page is public, b's
	// requisites still withheld (no tombstone); day 32: b's are public too.
	for _, pass := range []struct {
		days     int
		released []string
		embargo  []string
		withheld []string
	}{
		{6, nil, []string{a.URL + "/"}, []string{b.URL + "/style.css", b.URL + "/img.png"}},
		{8, []string{a.URL + "/"}, nil, []string{b.URL + "/style.css", b.URL + "/img.png"}},
		{32, []string{a.URL + "/", b.URL + "/style.css", b.URL + "/img.png"}, nil, nil},
	} {
		now := start.Add(time.Duration(pass.days) * 24 * time.Hour).Format(time.RFC3339)
		mustRun(t, exe, "release", "--data", data, "--now", now)
		state := publicState(t, filepath.Join(data, "public"))
		all := publicBytes(t, filepath.Join(data, "public"))
		for _, u := range pass.released {
			if state[u].State != public.StateReleased {
				t.Errorf("day %d: %s is %q, want released", pass.days, u, state[u].State)
			}
		}
		for _, u := range pass.embargo {
			if state[u].State != public.StateTombstone {
				t.Errorf("day %d: %s is %q, want a tombstone", pass.days, u, state[u].State)
			}
		}
		for _, u := range pass.withheld {
			if state[u].State != "" {
				t.Errorf("day %d: %s is %q, want nothing public: withheld for a's page", pass.days, u, state[u].State)
			}
			if p := strings.TrimPrefix(u, b.URL); pass.days < 8 && bytes.Contains(all, []byte(p)) {
				t.Errorf("day %d: %s, read from a's page under embargo, is under public/", pass.days, p)
			}
		}
		for _, m := range []string{"MARK-B-CSS", "MARK-B-IMG"} {
			if got, want := bytes.Contains(all, []byte(m)), pass.days >= 32; got != want {
				t.Errorf("day %d: %s under public/: %v, want %v", pass.days, m, got, want)
			}
		}
		if got, want := bytes.Contains(all, []byte("MARK-A-PAGE")), pass.days >= 8; got != want {
			t.Errorf("day %d: a's page under public/: %v, want %v", pass.days, got, want)
		}
		if bytes.Contains(all, []byte("MARK-C-FONT")) {
			t.Errorf("day %d: c's font is public", pass.days)
		}
	}
}

// TestCrawlScopeDomainSitemapAndHeader: a seed line with scope=domain crawls www. and a
// subdomain, not another domain (host names resolved to loopback by the config's resolve
// table); robots.txt names a sitemap listing a page nothing links to, which is fetched with
// its lastmod; with --header-embargo, an Archive-Embargo: q response field lengthens one
// capture's month, and a w field leaves another's month alone.
func TestCrawlScopeDomainSitemapAndHeader(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	var newsURL, otherURL, wwwURL string
	www := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nArchive-Embargo: m\nSitemap: %s/sitemap.xml\n", wwwURL)
		case "/sitemap.xml":
			fmt.Fprintf(w, `<urlset><url><loc>%s/hidden</loc><lastmod>2026-10-31</lastmod></url><url><loc>%s/x</loc></url></urlset>`, wwwURL, otherURL)
		case "/":
			fmt.Fprintf(w, `<a href="%s/">news</a> <a href="%s/">other</a> <a href="/long">l</a> <a href="/short">s</a>`, newsURL, otherURL)
		case "/long":
			w.Header().Set("Archive-Embargo", "q")
		case "/short":
			w.Header().Set("Archive-Embargo", "w")
		case "/hidden":
		default:
			http.NotFound(w, r)
		}
	}))
	defer www.Close()
	news := crawlertest.NewServer(crawlertest.Pages(map[string]string{"/": "news"}))
	defer news.Close()
	other := crawlertest.NewServer(crawlertest.Pages(map[string]string{"/": "other"}))
	defer other.Close()
	named := func(o *crawlertest.Server, host string) string {
		u, _ := url.Parse(o.URL)
		return "http://" + host + ":" + u.Port()
	}
	wwwURL, newsURL, otherURL = named(www, "www.example.test"), named(news, "news.example.test"), named(other, "other.test")
	cfg := "crawl:\n  resolve:\n    www.example.test: 127.0.0.1\n    news.example.test: 127.0.0.1\n    other.test: 127.0.0.1\n"
	data := t.TempDir()
	r := waitCrawl(t, crawlCmd(t, exe, data, []string{wwwURL + "/ scope=domain"}, cfg, "--delay", "0s", "--header-embargo"))
	if r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s", r.code, r.stderr)
	}
	want := map[string][]string{
		"www":   {"/", "/hidden", "/long", "/robots.txt", "/short", "/sitemap.xml"},
		"news":  {"/", "/robots.txt", "/sitemap.xml"}, // read by default, 404: not archived
		"other": nil,
	}
	for name, o := range map[string]*crawlertest.Server{"www": www, "news": news, "other": other} {
		if got := sortedStrings(o.Paths()); !slices.Equal(got, want[name]) {
			t.Errorf("%s requested %v, want %v", name, got, want[name])
		}
		if err := o.CheckPolite(0); len(want[name]) > 0 && err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	caps := capturesByURL(sealedCaptures(t, data, false))
	if h := caps[wwwURL+"/hidden"]; len(h) != 1 || h[0].facts["sitemap"] != wwwURL+"/sitemap.xml" || h[0].facts["sitemap_lastmod"] != "2026-10-31" {
		t.Errorf("the page only the sitemap lists: %+v, want its sitemap and lastmod in the metadata", h)
	}
	for p, w := range map[string]struct {
		days   int
		source string
	}{"/long": {90, "header"}, "/short": {31, "robots.txt"}, "/": {31, "robots.txt"}} {
		cs := caps[wwwURL+p]
		if len(cs) != 1 || int(cs[0].entry.Period) != w.days || cs[0].facts["embargo_source"] != w.source {
			t.Errorf("%s: %+v, want %d days decided by %s", p, cs, w.days, w.source)
			continue
		}
		if got := cs[0].entry.ReleaseAt.Sub(cs[0].entry.Time); got != time.Duration(w.days)*24*time.Hour {
			t.Errorf("%s: released %v after its capture, want %d days", p, got, w.days)
		}
	}
	// The lookup shows the deciding source: the lengthened capture's tombstone says header, the
	// released ones robots.txt, and a capture under no embargo says nothing.
	mustRun(t, exe, "release", "--data", data, "--now", time.Now().Add(32*24*time.Hour).UTC().Format(time.RFC3339))
	lines := publicState(t, filepath.Join(data, "public"))
	s := startServe(t, exe, "--data", data)
	defer s.stop(t, syscall.SIGTERM)
	for u, want := range map[string]struct{ tombstone, source string }{
		wwwURL + "/long": {"true", "header"}, wwwURL + "/short": {"", "robots.txt"}, wwwURL + "/hidden": {"", "robots.txt"}, newsURL + "/": {"", ""},
	} {
		var a struct {
			Captures []map[string]any `json:"captures"`
		}
		code, body := s.get(t, "/api/v1/captures?url="+url.QueryEscape(u), &a)
		if code != 200 || len(a.Captures) != 1 {
			t.Errorf("%s: %d %s, want one capture", u, code, body)
			continue
		}
		// The service's clock is the real one, so the released lines' captures are still shown
		// embargoed there: the public lines say what was released.
		if l := lines[u]; (l.State == public.StateTombstone) != (want.tombstone != "") || l.EmbargoSource != want.source {
			t.Errorf("%s: public line %q with embargo_source %q, want a tombstone %v and %q", u, l.State, l.EmbargoSource, want.tombstone != "", want.source)
		}
		if got, ok := a.Captures[0]["embargo_source"]; ok != (want.source != "") || (ok && got != want.source) {
			t.Errorf("%s: embargo_source %v (present %v), want %q: %s", u, got, ok, want.source, body)
		}
	}
	if code, body := s.get(t, "/?url="+url.QueryEscape(wwwURL+"/long"), nil); code != 200 || !strings.Contains(body, "embargo set by the Archive-Embargo response header") {
		t.Errorf("page of /long: %d, no embargo source beside the release date:\n%s", code, body)
	}
}

func sortedStrings(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
