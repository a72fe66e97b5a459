package lookup

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/public"
)

// measureScript reports the layout facts the test checks: the document's width against the
// viewport's, every element whose right edge lies beyond the viewport, and each calendar shown
// with its rendered width and its scale against the SVG's own size.
const measureScript = `(function () {
  var d = document.documentElement, out = {scrollWidth: d.scrollWidth, viewport: window.innerWidth, calendars: [], beyond: []};
  document.querySelectorAll("svg.calendar").forEach(function (svg) {
    var r = svg.getBoundingClientRect();
    if (r.width > 0) out.calendars.push({cls: svg.getAttribute("class"), width: r.width, scale: r.width / svg.viewBox.baseVal.width});
  });
  document.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > window.innerWidth + 0.5) out.beyond.push(e.tagName + "." + e.getAttribute("class") + " right=" + Math.round(r.right));
  });
  out.text = document.body.innerText;
  return out;
})()`

// measured is what measureScript reports.
type measured struct {
	ScrollWidth int `json:"scrollWidth"`
	Viewport    int `json:"viewport"`
	Calendars   []struct {
		Class string  `json:"cls"`
		Width float64 `json:"width"`
		Scale float64 `json:"scale"`
	} `json:"calendars"`
	Beyond []string `json:"beyond"` // elements whose right edge lies beyond the viewport
	Text   string   `json:"text"`
}

// longURL is a URL too long for a phone's line.
const longURL = "https://example.com/news/a-rather-long-article-name-that-goes-on-and-on-and-on-without-a-break-2026.html?edition=weekend&section=local"

// TestBrowserViews renders the page's views in headless Chromium at a laptop's width (1280 px)
// and a phone's (390 px), saves a screenshot of each (see testkit.ScreenshotDir; the timeline's and the
// day view's are lookup-timeline-*.png and lookup-day-*.png), and checks the layout:
// nothing runs past the right edge, the calendar shown is the one for the width, at least twice
// the old 282 px on a laptop, and never scaled so far down that its 12 px labels shrink.
func TestBrowserViews(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	f := standard(t)
	f.release(public.CDXJ{URL: longURL, Mime: "text/html", Status: 200, Digest: "sha256:ff", ID: "<urn:uuid:long>",
		Time: "2026-09-01T08:00:00Z", ReleaseAt: "2026-09-08T08:00:00Z", Usage: []string{"train-ai=n", "search=y"},
		Headers: [][2]string{{"Content-Type", "text/html"}, {"Set-Cookie", "session=" + strings.Repeat("0123456789abcdef", 8)}}}, "text/html", "<p>long</p>")
	f.commit()
	s := f.server(testNow)
	ts := httptest.NewServer(s)
	defer ts.Close()
	dir := testkit.ScreenshotDir(t)
	b := testkit.StartBrowser(t, chromium)
	views := []struct{ name, path, want string }{
		{"home", "/", "Recently released"},
		{"embargoed", "/?url=" + url.QueryEscape("https://example.com/tree/p03"), "Under embargo: only this tombstone is public"},
		{"released", "/?url=" + url.QueryEscape(longURL), "WARC record"},
		{"both", "/?url=" + url.QueryEscape("https://www.example.com/a/"), "2 captures of"},
		{"never-archived", "/?url=" + url.QueryEscape("https://example.com/tree/p99/gone.html"), "Everything under https://example.com/tree/p99/"},
		{"prefix", "/?matchType=prefix&limit=10&url=" + url.QueryEscape("https://example.com/"), "Next page"},
		{"timeline", "/?view=timeline&url=" + url.QueryEscape("https://example.com/a"), "Timeline of https://example.com/a"},
		{"day", "/?day=2026-12-01&limit=3", "Releasing on Tue 1 Dec 2026"},
	}
	for _, width := range []int{1280, 390} {
		for _, v := range views {
			b.Open(ts.URL+v.path, width, 900)
			var m measured
			b.Eval(measureScript, &m)
			shot := filepath.Join(dir, fmt.Sprintf("lookup-%s-%d.png", v.name, width))
			b.Screenshot(shot, width)
			if fi, err := os.Stat(shot); err != nil || fi.Size() < 10<<10 {
				t.Errorf("%s at %d px: screenshot %s missing or nearly empty: %v", v.name, width, shot, err)
			}
			if !strings.Contains(m.Text, v.want) {
				t.Errorf("%s at %d px: the rendered page lacks %q", v.name, width, v.want)
			}
			if m.Viewport != width {
				t.Fatalf("%s: the viewport is %d px wide, not %d: the measurements would mean nothing", v.name, m.Viewport, width)
			}
			if m.ScrollWidth > m.Viewport || len(m.Beyond) > 0 {
				t.Errorf("%s at %d px: the page is %d px wide; beyond the right edge: %v", v.name, width, m.ScrollWidth, m.Beyond)
			}
			if v.name == "prefix" || v.name == "timeline" || v.name == "day" { // lists: no calendar
				continue
			}
			if len(m.Calendars) != 1 {
				t.Errorf("%s at %d px: %d calendars shown, want 1", v.name, width, len(m.Calendars))
				continue
			}
			c := m.Calendars[0]
			switch {
			case width >= 1000 && (!strings.Contains(c.Class, "wide") || c.Width < 2*282):
				t.Errorf("%s at %d px: calendar %q is %.0f px wide", v.name, width, c.Class, c.Width)
			case width < 500 && (!strings.Contains(c.Class, "tall") || c.Scale < 0.92):
				t.Errorf("%s at %d px: calendar %q is drawn at %.2f of its size: its labels are under 12 px", v.name, width, c.Class, c.Scale)
			}
		}
	}
	t.Logf("screenshots in %s", dir)
}
