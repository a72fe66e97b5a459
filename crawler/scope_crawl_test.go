package crawler

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/embargo"
)

// TestCrawlScopes crawls loopback origins under host names (Resolve maps them to 127.0.0.1):
// a seed with scope=domain reaches www. and a subdomain but not another domain, a prefix seed
// stays under its directory, exclude patterns keep pages and requisites out.
func TestCrawlScopes(t *testing.T) {
	t.Parallel()
	resolve := map[string]string{"www.example.test": "127.0.0.1", "news.example.test": "127.0.0.1", "example.test": "127.0.0.1", "other.test": "127.0.0.1"}
	named := func(o *crawlertest.Server, host string) string {
		u, _ := url.Parse(o.URL)
		return "http://" + host + ":" + u.Port()
	}
	var wwwURL, newsURL, bareURL, otherURL string
	www := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pages(map[string]string{
			"/": fmt.Sprintf(`<a href="%s/">news</a><a href="%s/">bare</a><a href="%s/">other</a><a href="/docs/a">docs</a><a href="/x.pdf">pdf</a>`+
				`<img src="%s/img.png"><img src="%s/skip.pdf">`, newsURL, bareURL, otherURL, otherURL, otherURL),
			"/docs/a": `<a href="/docs/b">b</a><a href="/">up</a>`, "/docs/b": "b", "/x.pdf": "pdf",
		}).ServeHTTP(w, r)
	}))
	news := newOrigin(t, pages(map[string]string{"/": "news"}))
	bare := newOrigin(t, pages(map[string]string{"/": "bare"}))
	other := newOrigin(t, pages(map[string]string{"/": "other", "/img.png": "img", "/skip.pdf": "pdf"}))
	wwwURL, newsURL, bareURL, otherURL = named(www, "www.example.test"), named(news, "news.example.test"), named(bare, "example.test"), named(other, "other.test")
	tests := []struct {
		name    string
		seed    Seed
		exclude []string
		want    map[*crawlertest.Server][]string
	}{
		{"domain", Seed{URL: mustCanonical(t, wwwURL+"/"), Scope: ScopeDomain}, nil, map[*crawlertest.Server][]string{
			www: {"/", "/docs/a", "/docs/b", "/robots.txt", "/sitemap.xml", "/x.pdf"}, news: {"/", "/robots.txt", "/sitemap.xml"}, bare: {"/", "/robots.txt", "/sitemap.xml"},
			other: {"/img.png", "/robots.txt", "/skip.pdf"}}},
		{"prefix with exclude", Seed{URL: mustCanonical(t, wwwURL+"/docs/a"), Scope: ScopePrefix}, []string{"*.pdf$"}, map[*crawlertest.Server][]string{
			www: {"/docs/a", "/docs/b", "/robots.txt", "/sitemap.xml"}}}, // the sitemap file need not be in the prefix, its pages must
		{"origin with exclude", Seed{URL: mustCanonical(t, wwwURL+"/")}, []string{"/x.pdf", "*.pdf$"}, map[*crawlertest.Server][]string{
			www: {"/", "/docs/a", "/docs/b", "/robots.txt", "/sitemap.xml"}, other: {"/img.png", "/robots.txt"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Sequential: the origins' logs are shared.
			before := map[*crawlertest.Server]int{}
			for _, o := range []*crawlertest.Server{www, news, bare, other} {
				before[o] = len(o.Log())
			}
			_, _, err := crawlInto(context.Background(), t, Config{ScopedSeeds: []Seed{tc.seed}, Exclude: tc.exclude, Resolve: resolve}, &fakeArchive{})
			if err != nil {
				t.Fatal(err)
			}
			for name, o := range map[string]*crawlertest.Server{"www": www, "news": news, "bare": bare, "other": other} {
				var got []string
				for _, h := range o.Log()[before[o]:] {
					got = append(got, h.Path)
				}
				slices.Sort(got)
				if !slices.Equal(got, tc.want[o]) {
					t.Errorf("%s requested %v, want %v", name, got, tc.want[o])
				}
			}
		})
	}
}

// TestCrawlHeaderEmbargo checks the Archive-Embargo response field: off by default; on, it
// lengthens a capture's period (a requisite's too) and never shortens one.
func TestCrawlHeaderEmbargo(t *testing.T) {
	t.Parallel()
	cdn := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Archive-Embargo", "q")
		w.Write([]byte("img"))
	}))
	a := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/long":
			w.Header().Set("Archive-Embargo", "Q")
		case "/short":
			w.Header().Set("Archive-Embargo", "w")
		case "/invalid":
			w.Header().Set("Archive-Embargo", "90d")
		}
		pages(map[string]string{
			"/robots.txt": "User-agent: *\nArchive-Embargo: m\n",
			"/":           `<a href="/long">l</a><a href="/short">s</a><a href="/invalid">i</a><img src="` + cdn.URL + `/i.png">`,
			"/long":       "long", "/short": "short", "/invalid": "invalid",
		}).ServeHTTP(w, r)
	}))
	type want struct {
		period embargo.Period
		source string
	}
	tests := []struct {
		on   bool
		want map[string]want
	}{
		{false, map[string]want{a.URL + "/long": {embargo.Month, ""}, a.URL + "/short": {embargo.Month, ""}, cdn.URL + "/i.png": {embargo.None, ""}}},
		{true, map[string]want{a.URL + "/long": {embargo.Quarter, sourceHeader}, a.URL + "/short": {embargo.Month, sourceRobots},
			a.URL + "/invalid": {embargo.Month, sourceRobots}, a.URL + "/": {embargo.Month, sourceRobots}, cdn.URL + "/i.png": {embargo.Quarter, sourceHeader}}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("header-embargo=%v", tc.on), func(t *testing.T) {
			t.Parallel()
			arch := &fakeArchive{}
			if _, _, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, a.URL+"/"), HeaderEmbargo: tc.on}, arch); err != nil {
				t.Fatal(err)
			}
			caps := arch.byURL()
			for u, w := range tc.want {
				cs := caps[u]
				if len(cs) != 1 || cs[0].Period != w.period || cs[0].EmbargoSource != w.source || !cs[0].Entry.ReleaseAt.Equal(cs[0].Time.Add(w.period.Duration())) {
					t.Errorf("%s: %+v, want period %v from %q", u, cs, w.period, w.source)
				}
			}
		})
	}
}
