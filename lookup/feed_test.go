package lookup

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/atom"
	"golang.org/x/net/html"

	"github.com/archivectl/archivectl/public"
)

// feedItem is one entry of a feed as a feed reader reads it, in either format.
type feedItem struct {
	id, title, card, record string
	release                 time.Time // the entry's updated (Atom) or date_modified (JSON Feed)
}

// parsedFeed is a feed as a feed reader reads it.
type parsedFeed struct {
	kind, title, self string
	updated           time.Time // Atom only: the feed's updated
	items             []feedItem
}

// readFeed parses body with gofeed: the universal parser must detect the format; an Atom feed is
// also read with gofeed's Atom parser, which keeps every link of an entry.
func readFeed(t *testing.T, format, body string) parsedFeed {
	t.Helper()
	uf, err := gofeed.NewParser().ParseString(body)
	if err != nil {
		t.Fatalf("gofeed: %v\n%s", err, body)
	}
	if uf.FeedType != format {
		t.Fatalf("gofeed reads a %s feed, want %s", uf.FeedType, format)
	}
	p := parsedFeed{kind: uf.FeedType, title: uf.Title, self: uf.FeedLink}
	if format == "json" {
		for _, it := range uf.Items {
			if it.UpdatedParsed == nil || len(it.Links) != 2 {
				t.Fatalf("item %s: updated %v, links %v", it.GUID, it.UpdatedParsed, it.Links)
			}
			p.items = append(p.items, feedItem{id: it.GUID, title: it.Title, card: it.Links[0], record: it.Links[1], release: *it.UpdatedParsed})
		}
		return p
	}
	af, err := (&atom.Parser{}).Parse(strings.NewReader(body))
	if err != nil {
		t.Fatalf("gofeed atom: %v", err)
	}
	if af.UpdatedParsed == nil || len(af.Authors) == 0 || af.ID == "" {
		t.Fatalf("atom feed without updated, author or id: %+v", af)
	}
	p.updated = *af.UpdatedParsed
	for _, e := range af.Entries {
		it := feedItem{id: e.ID, title: e.Title}
		for _, l := range e.Links {
			switch l.Rel {
			case "alternate":
				it.card = l.Href
			case "related":
				it.record = l.Href
			}
		}
		if e.UpdatedParsed == nil {
			t.Fatalf("entry %s has no updated", e.ID)
		}
		it.release = *e.UpdatedParsed
		p.items = append(p.items, it)
	}
	return p
}

// feedFixture is the standard fixture with captures of a second host.
func feedFixture(t *testing.T) *fixture {
	f := standard(t)
	f.release(public.CDXJ{URL: "https://other.example/x", Status: 200, Digest: "sha256:ff", ID: "<urn:uuid:ox>",
		Time: "2026-11-01T00:00:00Z", ReleaseAt: "2026-11-08T00:00:00Z"}, "text/html", "<p>other x body</p>")
	f.tombstone(public.CDXJ{URL: "https://other.example/y", Status: 200, Digest: "sha256:fe", ID: "<urn:uuid:oy>",
		Time: "2026-11-28T00:00:00Z", ReleaseAt: "2026-11-30T00:00:00Z", Headers: [][2]string{{"X-Secret-Header", "tombstone header value"}}})
	f.commit()
	return f
}

// ids lists the capture URLs of a feed's items, in order, from their record links.
func itemURLs(t *testing.T, p parsedFeed) []string {
	t.Helper()
	var out []string
	for _, it := range p.items {
		u, err := url.Parse(it.record)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, u.Query().Get("url")+"@"+u.Query().Get("timestamp"))
	}
	return out
}

// TestFeeds: the four feeds, whole and filtered by host and prefix, as gofeed reads them: the
// entries in order (latest release first; soonest release first), each linking to its capture
// card and record with its release time, and the feed's updated the last pass.
func TestFeeds(t *testing.T) {
	t.Parallel()
	s := feedFixture(t).server(testNow)
	var tree []string
	for day := 1; day <= 5; day++ {
		for i := day - 1; i < 25; i += 5 {
			tree = append(tree, fmt.Sprintf("https://example.com/tree/p%02d@20261120000000", i))
		}
	}
	upcomingAll := slices.Concat([]string{"https://other.example/y@20261128000000"}, tree,
		[]string{"https://example.com/treehouse@20261120000000", "https://example.com/a@20261129200000"})
	releasedExample := []string{"https://example.com/b@20261002000000", "https://example.com/b@20261001000000", "https://example.com/a@20260801100000"}
	for _, tc := range []struct {
		name, target string
		want         []string
		self         string // the feed's own link when not target: the filter in its canonical form
	}{
		{"releases", "/feed/releases.{f}", slices.Concat([]string{"https://other.example/x@20261101000000"}, releasedExample), ""},
		{"releases host", "/feed/releases.{f}?host=example.com", releasedExample, ""},
		{"releases other host", "/feed/releases.{f}?host=other.example", []string{"https://other.example/x@20261101000000"}, ""},
		{"releases prefix", "/feed/releases.{f}?prefix=" + url.QueryEscape("https://example.com/b"), releasedExample[:2], ""},
		{"releases prefix nothing", "/feed/releases.{f}?prefix=" + url.QueryEscape("https://example.com/tree/"), nil, ""},
		{"upcoming", "/feed/upcoming.{f}", upcomingAll, ""},
		{"upcoming host", "/feed/upcoming.{f}?host=EXAMPLE.com", upcomingAll[1:], "/feed/upcoming.{f}?host=example.com"},
		{"upcoming prefix dir", "/feed/upcoming.{f}?prefix=" + url.QueryEscape("https://example.com/tree/"), tree, ""},
		{"upcoming prefix", "/feed/upcoming.{f}?prefix=example.com/tree", slices.Concat(tree, []string{"https://example.com/treehouse@20261120000000"}),
			"/feed/upcoming.{f}?prefix=" + url.QueryEscape("https://example.com/tree")},
	} {
		for _, format := range []string{"atom", "json"} {
			t.Run(tc.name+" "+format, func(t *testing.T) {
				t.Parallel()
				target := strings.Replace(tc.target, "{f}", format, 1)
				rec := get(t, s, target)
				if rec.Code != http.StatusOK {
					t.Fatalf("%s: %d %s", target, rec.Code, rec.Body)
				}
				ct := map[string]string{"atom": "application/atom+xml", "json": "application/feed+json"}[format]
				if got := rec.Header().Get("Content-Type"); !strings.HasPrefix(got, ct) {
					t.Errorf("Content-Type %q, want %s", got, ct)
				}
				p := readFeed(t, format, rec.Body.String())
				if got := itemURLs(t, p); !slices.Equal(got, tc.want) {
					t.Fatalf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
				self := target
				if tc.self != "" {
					self = strings.Replace(tc.self, "{f}", format, 1)
				}
				if p.self != "http://example.com"+self {
					t.Errorf("self link %q, want http://example.com%s", p.self, self)
				}
				if format == "atom" && !p.updated.Equal(time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)) {
					t.Errorf("feed updated %v, want the last pass", p.updated)
				}
				for _, it := range p.items {
					u, _ := url.Parse(it.record)
					card, _ := url.Parse(it.card)
					if card.Path != "/" || card.Query().Get("url") != u.Query().Get("url") || u.Path != "/api/v1/record" || card.Host != "example.com" {
						t.Errorf("%s: card %s, record %s", it.id, it.card, it.record)
					}
					if !strings.HasPrefix(it.id, feedTag+strings.SplitN(tc.name, " ", 2)[0]+":urn:uuid:") {
						t.Errorf("entry id %q", it.id)
					}
					// The release time is the capture's, as the captures API gives it.
					var api struct {
						Captures []struct {
							Timestamp string `json:"timestamp"`
							ReleaseAt string `json:"release_at"`
						} `json:"captures"`
					}
					r := get(t, s, "/api/v1/captures?url="+url.QueryEscape(u.Query().Get("url")))
					decode(t, r.Body, &api)
					found := false
					for _, c := range api.Captures {
						ra, _ := time.Parse(time.RFC3339Nano, c.ReleaseAt)
						ts, _ := time.Parse(time.RFC3339Nano, c.Timestamp)
						found = found || (ts.Format("20060102150405") == u.Query().Get("timestamp") && ra.Equal(it.release))
					}
					if !found {
						t.Errorf("%s: release time %v is not the capture's (%+v)", it.id, it.release, api.Captures)
					}
				}
			})
		}
	}
}

// TestFeedIDsStable: entry ids are the same across two requests, in both formats, across a new
// server over the same directory and after a pass that adds a capture.
func TestFeedIDsStable(t *testing.T) {
	t.Parallel()
	f := feedFixture(t)
	for _, target := range []string{"/feed/releases.atom", "/feed/releases.json", "/feed/upcoming.atom", "/feed/upcoming.json"} {
		format := target[strings.LastIndexByte(target, '.')+1:]
		ids := func(s *Server) []string {
			var out []string
			for _, it := range readFeed(t, format, get(t, s, target).Body.String()).items {
				out = append(out, it.id)
			}
			return out
		}
		s := f.server(testNow)
		first := ids(s)
		if len(first) == 0 {
			t.Fatalf("%s: no entries", target)
		}
		if again := ids(s); !slices.Equal(first, again) {
			t.Errorf("%s: ids changed between two requests:\n%v\n%v", target, first, again)
		}
		if other := ids(f.server(testNow.Add(48 * time.Hour))); !slices.Equal(first, other) {
			t.Errorf("%s: ids differ on another server:\n%v\n%v", target, first, other)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(first)))) != len(first) {
			t.Errorf("%s: ids repeat: %v", target, first)
		}
	}
}

// TestFeedConditionalGET: a feed carries an ETag and the last pass as Last-Modified; asked again
// with If-None-Match or If-Modified-Since it answers 304 with no body, until a pass changes it.
func TestFeedConditionalGET(t *testing.T) {
	t.Parallel()
	f := feedFixture(t)
	s := f.server(testNow)
	ask := func(target string, h http.Header) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header = h
		s.ServeHTTP(rec, req)
		return rec
	}
	for _, target := range []string{"/feed/releases.atom", "/feed/releases.json?host=example.com", "/feed/upcoming.atom?prefix=https://example.com/tree/", "/feed/upcoming.json"} {
		first := ask(target, http.Header{})
		etag, lm := first.Header().Get("ETag"), first.Header().Get("Last-Modified")
		if first.Code != http.StatusOK || etag == "" || lm != "Sun, 29 Nov 2026 21:00:00 GMT" {
			t.Fatalf("%s: %d, ETag %q, Last-Modified %q", target, first.Code, etag, lm)
		}
		if again := ask(target, http.Header{}); again.Header().Get("ETag") != etag || again.Body.String() != first.Body.String() {
			t.Errorf("%s: a second request differs", target)
		}
		for _, h := range []http.Header{{"If-None-Match": {etag}}, {"If-None-Match": {`"other", ` + etag}}, {"If-Modified-Since": {lm}}} {
			if rec := ask(target, h); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 || rec.Header().Get("ETag") != etag {
				t.Errorf("%s with %v: %d, %d bytes, ETag %q; want 304", target, h, rec.Code, rec.Body.Len(), rec.Header().Get("ETag"))
			}
		}
		if rec := ask(target, http.Header{"If-None-Match": {`"stale"`}}); rec.Code != http.StatusOK {
			t.Errorf("%s with a stale ETag: %d, want 200", target, rec.Code)
		}
		if rec := httptestDo(s, http.MethodHead, target); rec.Code != http.StatusOK || rec.Header().Get("ETag") != etag {
			t.Errorf("HEAD %s: %d, ETag %q", target, rec.Code, rec.Header().Get("ETag"))
		}
	}
	// A pass that releases one more capture: the feed changes, and so does its ETag.
	before := ask("/feed/releases.atom", http.Header{}).Header().Get("ETag")
	f.release(public.CDXJ{URL: "https://example.com/new", Status: 200, Digest: "sha256:99", ID: "<urn:uuid:new>",
		Time: "2026-11-20T00:00:00Z", ReleaseAt: "2026-11-27T00:00:00Z"}, "text/html", "new")
	f.commit()
	if _, err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	rec := ask("/feed/releases.atom", http.Header{"If-None-Match": {before}})
	if rec.Code != http.StatusOK || rec.Header().Get("ETag") == before {
		t.Fatalf("after a pass: %d, ETag %q (was %q)", rec.Code, rec.Header().Get("ETag"), before)
	}
	if got := itemURLs(t, readFeed(t, "atom", rec.Body.String())); got[0] != "https://example.com/new@20261120000000" {
		t.Errorf("after a pass, the first entry is %s", got[0])
	}
}

// TestFeedNoBody: a feed names captures by URL and times only: no released record's body, no
// tombstone's header fields, whatever the feed.
func TestFeedNoBody(t *testing.T) {
	t.Parallel()
	s := feedFixture(t).server(testNow)
	for _, target := range []string{"/feed/releases.atom", "/feed/releases.json", "/feed/upcoming.atom", "/feed/upcoming.json"} {
		body := get(t, s, target).Body.String()
		for _, secret := range []string{"old version of a", "b body", "other x body", "X-Secret-Header", "tombstone header value", "Last-Modified", "Sun, 29 Nov 2026 19:00:00", "train-ai", "sha256:"} {
			if strings.Contains(body, secret) {
				t.Errorf("%s holds %q", target, secret)
			}
		}
	}
}

// TestFeedBounded: a feed lists feedLimit entries at most, the latest (or soonest) ones.
func TestFeedBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const n = 3*feedLimit + 7
	t0 := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		f.tombstone(public.CDXJ{URL: fmt.Sprintf("https://example.com/p%03d", (i*37)%n), Status: 200, Digest: "sha256:00",
			ID: fmt.Sprintf("<urn:uuid:%d>", i), Time: "2026-11-20T00:00:00Z", ReleaseAt: t0.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)})
	}
	f.commit()
	s := f.server(testNow)
	for _, format := range []string{"atom", "json"} {
		p := readFeed(t, format, get(t, s, "/feed/upcoming."+format).Body.String())
		if len(p.items) != feedLimit {
			t.Fatalf("%s: %d entries, want %d", format, len(p.items), feedLimit)
		}
		for i, it := range p.items {
			if want := t0.Add(time.Duration(i) * time.Hour); !it.release.Equal(want) {
				t.Fatalf("%s: entry %d released %v, want %v", format, i, it.release, want)
			}
		}
	}
}

// TestFeedBadFilter: a filter that names no host or URL is a 400 with a JSON error.
func TestFeedBadFilter(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	for _, q := range []string{"?host=", "?host=example.com/a", "?host=a@b", "?prefix=", "?prefix=ftp://example.com/", "?host=example.com&prefix=https://example.com/", "?host=%zz"} {
		rec := get(t, s, "/feed/releases.atom"+q)
		var e apiError
		if rec.Code != http.StatusBadRequest || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s, want 400", q, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		decode(t, rec.Body, &e)
		if e.Error == "" {
			t.Errorf("%s: no error message", q)
		}
	}
	if rec := httptestDo(s, http.MethodPost, "/feed/releases.atom"); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", rec.Code)
	}
}

// TestFeedAutodiscovery: the lookup pages advertise the feeds in their head (rel="alternate"
// with the feed's type); a prefix view also advertises the feeds of its prefix, and each
// advertised feed answers.
func TestFeedAutodiscovery(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	for _, tc := range []struct {
		page string
		want []string
	}{
		{"/", []string{"/feed/releases.atom", "/feed/releases.json", "/feed/upcoming.atom", "/feed/upcoming.json"}},
		{"/?url=https://example.com/a", []string{"/feed/releases.atom", "/feed/releases.json", "/feed/upcoming.atom", "/feed/upcoming.json"}},
		{"/?matchType=prefix&url=" + url.QueryEscape("https://example.com/tree/"), []string{"/feed/releases.atom", "/feed/releases.json", "/feed/upcoming.atom", "/feed/upcoming.json",
			"/feed/releases.atom?prefix=https%3a%2f%2fexample.com%2ftree%2f", "/feed/releases.json?prefix=https%3a%2f%2fexample.com%2ftree%2f",
			"/feed/upcoming.atom?prefix=https%3a%2f%2fexample.com%2ftree%2f", "/feed/upcoming.json?prefix=https%3a%2f%2fexample.com%2ftree%2f"}},
	} {
		doc, err := html.Parse(get(t, s, tc.page).Body)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for n := range doc.Descendants() {
			if n.Type != html.ElementNode || n.Data != "link" || n.Parent.Data != "head" {
				continue
			}
			a := map[string]string{}
			for _, at := range n.Attr {
				a[at.Key] = at.Val
			}
			if a["rel"] != "alternate" {
				continue
			}
			want := map[string]string{"atom": "application/atom+xml", "json": "application/feed+json"}[strings.SplitN(a["href"][strings.LastIndexByte(strings.SplitN(a["href"], "?", 2)[0], '.')+1:], "?", 2)[0]]
			if a["type"] != want || a["title"] == "" {
				t.Errorf("%s: link %v: want type %s and a title", tc.page, a, want)
			}
			got = append(got, a["href"])
			format := "atom"
			if a["type"] == "application/feed+json" {
				format = "json"
			}
			readFeed(t, format, get(t, s, a["href"]).Body.String())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s advertises\n%v\nwant\n%v", tc.page, got, tc.want)
		}
	}
}
