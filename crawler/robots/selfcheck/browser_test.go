package selfcheck

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
)

// measureScript reports the document's width against the viewport's, every element whose right
// edge lies beyond the viewport, whether the lookup's stylesheet applied, and the text.
const measureScript = `(function () {
  var d = document.documentElement, out = {scrollWidth: d.scrollWidth, viewport: window.innerWidth, beyond: []};
  document.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > window.innerWidth + 0.5) out.beyond.push(e.tagName + "." + e.getAttribute("class") + " right=" + Math.round(r.right));
  });
  out.styled = getComputedStyle(document.querySelector("header.top")).borderBottomStyle === "solid" &&
    getComputedStyle(document.querySelector("form.check")).display === "grid";
  out.text = document.body.innerText;
  return out;
})()`

type measured struct {
	ScrollWidth int      `json:"scrollWidth"`
	Viewport    int      `json:"viewport"`
	Beyond      []string `json:"beyond"`
	Styled      bool     `json:"styled"`
	Text        string   `json:"text"`
}

// TestBrowserPage fills the page's form in headless Chromium and submits it (no JavaScript of
// the page's own: the form posts), then photographs the results at a laptop's and a phone's width.
func TestBrowserPage(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	static := http.StripPrefix("/static/", http.FileServer(http.Dir("../../../lookup/static")))
	h := New(Options{Now: func() time.Time { return testNow }, Logger: slog.New(slog.DiscardHandler)})
	ts := httptest.NewServer(h.Wrap(static))
	defer ts.Close()
	dir := testkit.ScreenshotDir(t)
	b := testkit.StartBrowser(t, chromium)
	urls := "https://example.com/news/2026/11/election-night-live-coverage-with-a-long-address\n/news/live/1\n/about\n/robots.txt"
	fill := fmt.Sprintf(`(function () {
  var f = document.querySelector("form.check");
  f.robots_txt.value = %s; f.urls.value = %s; f.last_modified.value = "Sun, 25 Oct 2026 08:00:00 GMT";
  f.submit(); return true;
})()`, js(sample), js(urls))
	for _, width := range []int{1280, 390} {
		b.Open(ts.URL+PagePath, width, 900)
		var ok bool
		b.EvalAndWait(fill, &ok, "Page.loadEventFired")
		var m measured
		b.Eval(measureScript, &m)
		shot := filepath.Join(dir, fmt.Sprintf("selfcheck-%d.png", width))
		b.Screenshot(shot, width)
		if fi, err := os.Stat(shot); err != nil || fi.Size() < 10<<10 {
			t.Errorf("%d px: screenshot %s missing or nearly empty: %v", width, shot, err)
		}
		for _, want := range []string{"4 URLs checked for archivectl", "Embargo-Allow: /news", "31 days", "invalid-embargo", "the longer Disallow on line 12"} {
			if !strings.Contains(m.Text, want) {
				t.Errorf("%d px: the rendered page lacks %q", width, want)
			}
		}
		if !m.Styled {
			t.Errorf("%d px: the lookup's stylesheet and the check's did not both apply", width)
		}
		if m.Viewport != width {
			t.Fatalf("the viewport is %d px wide, not %d", m.Viewport, width)
		}
		if m.ScrollWidth > m.Viewport || len(m.Beyond) > 0 {
			t.Errorf("%d px: the page is %d px wide; beyond the right edge: %v", width, m.ScrollWidth, m.Beyond)
		}
	}
	t.Logf("screenshots in %s", dir)
}

// js is s as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
