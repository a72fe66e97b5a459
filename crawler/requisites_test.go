package crawler

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/store"
)

// TestCrawlRequisitesAcrossOrigins crawls a page on origin a that embeds an image and a
// stylesheet from b (robots.txt: a month's embargo), whose stylesheet pulls a font from c
// (robots.txt disallows it) and an image from b; a also embeds an image from d, whose
// robots.txt answers 503. Every origin's log shows robots.txt first and politeness; b's
// requisites carry b's embargo and name the page that embeds them; c's font and anything on
// d are never requested; b's link (not an embed) is not followed.
func TestCrawlRequisitesAcrossOrigins(t *testing.T) {
	t.Parallel()
	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprintf("no-requisites=%v", off), func(t *testing.T) {
			t.Parallel()
			c := newOrigin(t, pages(map[string]string{"/robots.txt": "User-agent: *\nDisallow: /font\n", "/font.woff2": "never"}))
			d := newOrigin(t, status("/robots.txt", http.StatusServiceUnavailable, map[string]string{"/x.png": "never"}))
			b := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/style.css" {
					w.Header().Set("Content-Type", "text/css")
					fmt.Fprintf(w, "@font-face{font-family:F;src:url(%s/font.woff2) format(\"woff2\")} body{background:url(/bg.png)}", c.URL)
					return
				}
				pages(map[string]string{"/robots.txt": "User-agent: *\nArchive-Embargo: m\n", "/img.png": "img", "/bg.png": "bg", "/page": "never"}).ServeHTTP(w, r)
			}))
			a := newOrigin(t, pages(map[string]string{
				"/robots.txt": "User-agent: *\nAllow: /\n",
				"/": fmt.Sprintf(`<link rel=stylesheet href="%[1]s/style.css"><img src="%[1]s/img.png"><a href="%[1]s/page">b</a>`+
					`<img src="%[2]s/x.png"><img src="/local.png"><img src="data:image/png;base64,AAAA"><script src="javascript:void(0)"></script>`, b.URL, d.URL),
				"/local.png": "local",
			}))
			const delay = 80 * time.Millisecond
			arch := &fakeArchive{}
			sum, _, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, a.URL+"/"), Delay: delay, NoRequisites: off}, arch)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]string{
				"a": {"/robots.txt", "/", "/local.png", "/sitemap.xml"}, // a requisite origin's /sitemap.xml is never read
				"b": {"/robots.txt", "/style.css", "/img.png", "/bg.png"},
				"c": {"/robots.txt"},
				"d": {"/robots.txt"},
			}
			if off {
				want["b"], want["c"], want["d"] = nil, nil, nil
			}
			for name, o := range map[string]*crawlertest.Server{"a": a, "b": b, "c": c, "d": d} {
				if got := o.Paths(); !slices.Equal(sortedCopy(got), sortedCopy(want[name])) {
					t.Errorf("%s requested %v, want %v", name, got, want[name])
				}
				if len(want[name]) > 0 {
					checkPolite(t, name, o, delay)
				}
			}
			if off {
				if sum.Requisites != 0 || sum.Pages != 2 {
					t.Errorf("summary %+v, want 2 pages and no requisite", sum)
				}
				return
			}
			caps := arch.byURL()
			page, robotsB := caps[a.URL+"/"], caps[b.URL+"/robots.txt"]
			if len(page) != 1 || len(robotsB) != 1 {
				t.Fatalf("page %v, b's robots.txt %v: want one capture each", page, robotsB)
			}
			sheet := caps[b.URL+"/style.css"]
			for _, tc := range []struct {
				url, via, viaID string
			}{
				{b.URL + "/img.png", a.URL + "/", page[0].Entry.ID},
				{b.URL + "/style.css", a.URL + "/", page[0].Entry.ID},
				{b.URL + "/bg.png", b.URL + "/style.css", sheet[0].Entry.ID},
			} {
				cs := caps[tc.url]
				if len(cs) != 1 {
					t.Fatalf("%s: %d captures, want 1", tc.url, len(cs))
				}
				if cs[0].Period != embargo.Month || cs[0].RobotsID != robotsB[0].Entry.ID {
					t.Errorf("%s: period %v decided by %s; want b's month, decided by %s", tc.url, cs[0].Period, cs[0].RobotsID, robotsB[0].Entry.ID)
				}
				if cs[0].RequisiteOf != tc.via || cs[0].RequisiteOfID != tc.viaID {
					t.Errorf("%s: requisite of %s %s, want %s %s", tc.url, cs[0].RequisiteOf, cs[0].RequisiteOfID, tc.via, tc.viaID)
				}
			}
			if p := page[0]; p.Period != embargo.None || p.RequisiteOf != "" || !slices.Contains(p.Outlinks, b.URL+"/page") {
				t.Errorf("page: %+v, want no embargo, no requisite-of, b's link among its outlinks", p.Capture)
			}
			// a's own image is a page of the scope (not counted as a requisite), sealed with its
			// page's provenance (docs/rules.md#d27).
			if local := caps[a.URL+"/local.png"]; len(local) != 1 || local[0].RequisiteOf != a.URL+"/" || local[0].RequisiteOfID != page[0].Entry.ID {
				t.Errorf("a's own image %+v: want a page of the scope, requisite of %s", local, a.URL+"/")
			}
			if sum.Requisites != 3 || sum.Pages != 5 || sum.Disallowed != 2 || sum.Embargoed[embargo.Month] != 3 || len(sum.Errors) != 0 {
				t.Errorf("summary %+v, want 5 pages of which 3 requisites under a month's embargo, 2 disallowed", sum)
			}
		})
	}
}

// TestRequisiteBounds feeds the crawler a page embedding 10,000 requisites (and garbage) and
// a 50 MB stylesheet: each is bounded and logged, and the crawl ends without an error.
func TestRequisiteBounds(t *testing.T) {
	t.Parallel()
	cdn := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/huge.css" {
			w.Header().Set("Content-Type", "text/css")
			chunk := []byte(strings.Repeat("a{background:url(x.png)}\n", 4096))
			for n := 0; n < 50<<20; n += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			return
		}
		w.Write([]byte("ok"))
	}))
	var doc strings.Builder
	doc.WriteString(`<link rel=stylesheet href="` + cdn.URL + `/huge.css"><img src="http://[::1">` + "<img src=\"\x00\xff\"><img src=\"https://:0/\">")
	for i := range 10000 {
		fmt.Fprintf(&doc, `<img src="%s/i/%d.png">`, cdn.URL, i)
	}
	a := newOrigin(t, pages(map[string]string{"/": doc.String()}))
	arch := &fakeArchive{}
	sum, log, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, a.URL+"/"), MaxBody: 4 << 20}, arch)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range cdn.Paths() {
		if strings.HasPrefix(p, "/i/") {
			n++
		}
	}
	if n != maxRequisites-1 {
		t.Errorf("%d images requested, want the limit %d less the stylesheet", n, maxRequisites-1)
	}
	for _, want := range []string{"more requisites than the limit", "response truncated"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if sum.Requisites != maxRequisites+1 || len(sum.Errors) != 0 { // the stylesheet's x.png is one more
		t.Errorf("summary: %d requisites, errors %v; want %d, none", sum.Requisites, sum.Errors, maxRequisites+1)
	}
}

// TestRequisiteOfOnResume resumes a crawl whose frontier holds a requisite found before a
// kill: the page's capture id, unknown when the requisite was persisted, is looked up.
func TestRequisiteOfOnResume(t *testing.T) {
	t.Parallel()
	cdn := newOrigin(t, pages(map[string]string{"/i.png": "img"}))
	a := newOrigin(t, pages(map[string]string{"/": "page"}))
	dir := t.TempDir()
	at := time.Now().UTC().Truncate(time.Second)
	fr, _, err := openFrontier(layout.Frontier(dir), []string{a.URL + "/"}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	req := item{URL: cdn.URL + "/i.png", Kind: kindRequisite, Hops: 1, Via: a.URL + "/", ViaTime: at}
	if err := fr.record([]urlChange{{Item: item{URL: a.URL + "/"}, State: done, Found: []item{req}}}); err != nil {
		t.Fatal(err)
	}
	fr.close()
	arch := &fakeArchive{}
	es, _ := arch.Seal(context.Background(), []store.Capture{{URL: a.URL + "/", Time: at}})
	if _, _, err := crawlInto(context.Background(), t, Config{DataDir: dir, Seeds: seedURLs(t, a.URL+"/")}, arch); err != nil {
		t.Fatal(err)
	}
	got := arch.byURL()[req.URL]
	if len(got) != 1 || got[0].RequisiteOf != a.URL+"/" || got[0].RequisiteOfID != es[0].ID {
		t.Fatalf("resumed requisite %+v, want requisite of %s %s", got, a.URL+"/", es[0].ID)
	}
	if n := len(a.Paths()); n != 0 {
		t.Errorf("the sealed page's origin got %d requests", n)
	}
}
