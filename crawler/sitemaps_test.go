package crawler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/embargo"
)

// sitemapSite serves an origin whose robots.txt names a sitemap index (and a hostile sitemap)
// and whose /sitemap.xml lists one more page; other is an origin out of the scope.
func sitemapSite(t *testing.T, other string) *crawlertest.Server {
	t.Helper()
	var self string
	o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /private\nSitemap: /index.xml\nSitemap: %s/bomb.xml\nSitemap: ftp://x/\n", self)
		case "/index.xml":
			fmt.Fprintf(w, `<sitemapindex><sitemap><loc>%[1]s/s1.xml.gz</loc></sitemap><sitemap><loc>%[1]s/nested.xml</loc></sitemap>`+
				`<sitemap><loc>%[2]s/elsewhere.xml</loc></sitemap><sitemap><loc>%[1]s/huge.xml.gz</loc></sitemap></sitemapindex>`, self, other)
		case "/s1.xml.gz":
			w.Header().Set("Content-Type", "application/gzip")
			w.Write(crawlertest.Gzip(fmt.Sprintf(`<urlset><url><loc>%[1]s/only-in-sitemap</loc><lastmod>2026-10-01</lastmod></url>`+
				`<url><loc>%[2]s/out-of-scope</loc></url><url><loc>%[1]s/private/x</loc></url><url><loc>javascript:alert(1)</loc></url></urlset>`, self, other)))
		case "/nested.xml":
			fmt.Fprintf(w, `<sitemapindex><sitemap><loc>%s/deeper.xml</loc></sitemap></sitemapindex>`, self)
		case "/deeper.xml":
			fmt.Fprintf(w, `<sitemapindex><sitemap><loc>%s/deepest.xml</loc></sitemap></sitemapindex>`, self)
		case "/bomb.xml":
			io := `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>` +
				`<urlset><url><loc>` + self + `/from-bomb</loc></url><url><loc>&b;</loc></url></urlset>`
			w.Write([]byte(io))
		case "/huge.xml.gz":
			w.Write(crawlertest.GzipFill(`<urlset><url><loc>`+self+`/from-huge</loc></url>`, ' ', 1<<30))
		case "/sitemap.xml":
			fmt.Fprintf(w, `<urlset><url><loc>%s/from-sitemap-xml</loc></url></urlset>`, self)
		case "/", "/only-in-sitemap", "/from-bomb", "/from-huge", "/from-sitemap-xml":
			w.Write([]byte("page"))
		default:
			http.NotFound(w, r)
		}
	}))
	self = o.URL
	return o
}

// TestCrawlSitemaps reads robots.txt's Sitemap lines: an index, a gzip sitemap listing a page
// no link reaches (fetched, its lastmod recorded), index files nested too deep (bounded), an
// entity bomb and a gigabyte of gzip (bounded), entries out of the scope or disallowed
// (skipped). /sitemap.xml is read in SitemapsAll mode (the default) only, and nothing in SitemapsOff mode.
func TestCrawlSitemaps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode SitemapMode
		want []string // paths requested, robots.txt aside, sorted
	}{
		{SitemapsRobots, []string{"/", "/bomb.xml", "/deeper.xml", "/from-bomb", "/from-huge", "/huge.xml.gz", "/index.xml", "/nested.xml", "/only-in-sitemap", "/s1.xml.gz"}},
		{SitemapsAll, []string{"/", "/bomb.xml", "/deeper.xml", "/from-bomb", "/from-huge", "/from-sitemap-xml", "/huge.xml.gz", "/index.xml", "/nested.xml", "/only-in-sitemap", "/s1.xml.gz", "/sitemap.xml"}},
		{SitemapsOff, []string{"/"}},
		{"", []string{"/", "/bomb.xml", "/deeper.xml", "/from-bomb", "/from-huge", "/from-sitemap-xml", "/huge.xml.gz", "/index.xml", "/nested.xml", "/only-in-sitemap", "/s1.xml.gz", "/sitemap.xml"}}, // the default: all
	}
	for _, tc := range tests {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			other := newOrigin(t, http.NotFoundHandler())
			o := sitemapSite(t, other.URL)
			arch := &fakeArchive{}
			sum, log, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, o.URL+"/"), Sitemaps: tc.mode}, arch)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range o.Paths() {
				if p != "/robots.txt" {
					got = append(got, p)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("requested %v\nwant      %v", got, tc.want)
			}
			if n := len(other.Log()); n != 0 {
				t.Errorf("the origin out of the scope got %d requests", n)
			}
			checkPolite(t, "site", o, 0)
			if tc.mode == SitemapsOff {
				return
			}
			caps := arch.byURL()
			only := caps[o.URL+"/only-in-sitemap"]
			if len(only) != 1 || only[0].Sitemap != o.URL+"/s1.xml.gz" || only[0].SitemapLastmod != "2026-10-01" {
				t.Errorf("the page only a sitemap lists: %+v, want its sitemap and lastmod recorded", only)
			}
			if sm := caps[o.URL+"/index.xml"]; len(sm) != 1 || sm[0].Period != embargo.None || sm[0].Outlinks != nil {
				t.Errorf("the sitemap index's capture: %+v, want one, without outlinks", sm)
			}
			for _, want := range []string{"nested too deep", "invalid XML", "larger than 50 MB", "not an http(s) URL"} {
				if !strings.Contains(log, want) {
					t.Errorf("log lacks %q", want)
				}
			}
			if sum.Sitemaps < 5 || sum.SitemapURLs < 3 || len(sum.Errors) != 0 || sum.Disallowed != 1 {
				t.Errorf("summary %+v: want the sitemaps read, the pages they list, one disallowed, no error", sum)
			}
		})
	}
}

// TestDefaultSitemapXML: by default every origin in the scope has its /sitemap.xml read, as any
// of its URLs: after robots.txt, only when that allows it for the product token, spaced by the
// delay. An answer other than 200 is neither archived nor an error; a redirect is followed.
func TestDefaultSitemapXML(t *testing.T) {
	t.Parallel()
	const delay = 60 * time.Millisecond
	tests := []struct {
		name     string
		robots   string
		sitemap  func(w http.ResponseWriter, r *http.Request)
		want     []string // paths requested, in order
		archived bool     // /listed is found through the sitemap and archived
	}{
		{"404", "User-agent: *\nAllow: /\n", http.NotFound, []string{"/robots.txt", "/", "/sitemap.xml"}, false},
		{"500", "User-agent: *\nAllow: /\n", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "oops", http.StatusInternalServerError)
		}, []string{"/robots.txt", "/", "/sitemap.xml"}, false},
		{"disallowed for the product token", "User-agent: archivectl\nDisallow: /sitemap.xml\n", nil, []string{"/robots.txt", "/"}, false},
		{"disallowed for another token only", "User-agent: other\nDisallow: /sitemap.xml\n", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "<urlset><url><loc>/listed</loc></url></urlset>")
		}, []string{"/robots.txt", "/", "/sitemap.xml", "/listed"}, true},
		{"a redirect is followed", "User-agent: *\nAllow: /\n", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/maps/site.xml", http.StatusMovedPermanently)
		}, []string{"/robots.txt", "/", "/sitemap.xml", "/maps/site.xml", "/listed"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/robots.txt":
					io.WriteString(w, tc.robots)
				case "/":
					io.WriteString(w, "<p>nothing links anywhere</p>")
				case "/sitemap.xml":
					tc.sitemap(w, r)
				case "/maps/site.xml":
					io.WriteString(w, "<urlset><url><loc>/listed</loc></url></urlset>")
				case "/listed":
					io.WriteString(w, "listed")
				default:
					http.NotFound(w, r)
				}
			}))
			arch := &fakeArchive{}
			sum, log, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, o.URL+"/"), Agent: "archivectl", Delay: delay}, arch)
			if err != nil {
				t.Fatal(err)
			}
			if got := o.Paths(); !slices.Equal(got, tc.want) {
				t.Errorf("requested %v, want %v", got, tc.want)
			}
			checkPolite(t, tc.name, o, delay)
			caps := arch.byURL()
			wantSitemap := 0 // only a 200 answer is archived
			if tc.name == "disallowed for another token only" {
				wantSitemap = 1
			}
			if n := len(caps[o.URL+"/sitemap.xml"]); n != wantSitemap {
				t.Errorf("/sitemap.xml archived %d times, want %d", n, wantSitemap)
			}
			if got := len(caps[o.URL+"/listed"]) == 1; got != tc.archived {
				t.Errorf("/listed archived: %v, want %v", got, tc.archived)
			}
			if len(sum.Errors) != 0 {
				t.Errorf("errors %v, want none", sum.Errors)
			}
			if slices.Contains(tc.want, "/sitemap.xml") && wantSitemap == 0 && !strings.Contains(log, `level=DEBUG msg="no sitemap at /sitemap.xml: not archived"`) {
				t.Errorf("no debug line for the missing sitemap:\n%s", log)
			}
		})
	}
}
