package lookup

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
)

// replayWebPage returns the directory of the replaywebpage package test/replay/install.sh
// installs (ui.js, sw.js, index.html: ReplayWeb.page as its public instance serves it), from
// ARCHIVECTL_REPLAY_NODE_DIR. Without it the test skips, unless CI is set: .ci/run sets it.
func replayWebPage(t *testing.T) string {
	t.Helper()
	dir := nodeDir(t, "ARCHIVECTL_REPLAY_NODE_DIR", "test/replay/install.sh", "the replay engines are not installed", "to replay in ReplayWeb.page")
	pkg := filepath.Join(dir, "node_modules", "replaywebpage")
	for _, f := range []string{"index.html", "ui.js", "sw.js"} {
		if _, err := os.Stat(filepath.Join(pkg, f)); err != nil {
			t.Fatalf("ARCHIVECTL_REPLAY_NODE_DIR=%s holds no ReplayWeb.page (installed for other pins? run test/replay/install.sh): %v", dir, err)
		}
	}
	return pkg
}

// replayProbe finds the replayed page inside ReplayWeb.page: it walks the app's shadow roots and
// its same-origin frames down to the document that has the page's headline, and says what that
// document shows: its title and headline, the headline's colour (from the archived stylesheet),
// the logo's and the embargoed photo's decoded widths, and the background image the stylesheet
// embeds, loaded from the replay. A document still loading is not found yet.
const replayProbe = `(async () => {
  const stack = [document];
  while (stack.length) {
    const n = stack.pop();
    const h = n.getElementById ? n.getElementById("headline") : null;
    if (h && h.ownerDocument.readyState !== "complete") return {found: false}; // still loading: ask again
    if (h) {
      const doc = h.ownerDocument, win = doc.defaultView;
      const logo = doc.getElementById("logo"), photo = doc.getElementById("photo");
      const bgCSS = win.getComputedStyle(doc.body).backgroundImage;
      const m = /url\("?([^")]+)"?\)/.exec(bgCSS);
      let bgWidth = -1;
      if (m) {
        const img = new win.Image();
        bgWidth = await new Promise(res => { img.onload = () => res(img.naturalWidth); img.onerror = () => res(0); img.src = m[1]; });
      }
      return {found: true, href: doc.location.href, title: doc.title, headline: h.textContent,
        color: win.getComputedStyle(h).color, logoComplete: logo.complete, logoWidth: logo.naturalWidth,
        logoHeight: logo.naturalHeight, photoComplete: photo.complete, photoWidth: photo.naturalWidth, bgWidth};
    }
    for (const el of n.querySelectorAll("*")) {
      if (el.shadowRoot) stack.push(el.shadowRoot);
      if (el.tagName === "IFRAME") { try { if (el.contentDocument) stack.push(el.contentDocument); } catch (e) {} }
    }
  }
  return {found: false};
})()`

// replayed is what replayProbe answers.
type replayed struct {
	Found                 bool
	Href, Title, Headline string
	Color                 string
	LogoComplete          bool
	LogoWidth, LogoHeight int
	PhotoComplete         bool
	PhotoWidth, BgWidth   int
}

// TestBrowserReplayWebPage is the one click, for real: a crawled and released page's card on the
// lookup page links it into ReplayWeb.page (the replaywebpage package from npm, served from
// loopback as its public instance serves it: index.html, ui.js, sw.js), and headless Chromium
// following that link replays the page from its package, fetched across origins from the lookup
// by ranges: its title and headline, its stylesheet applied (the headline's colour, the
// background image it embeds), its logo decoded at its size; the photo under embargo is not
// there (width 0), as the card says. It saves a screenshot of the replay at
// 1280 and 390 px (replaywebpage-replay-*.png, see testkit.ScreenshotDir).
func TestBrowserReplayWebPage(t *testing.T) {
	t.Parallel()
	pkg := replayWebPage(t)
	chromium := testkit.ChromiumPath(t)
	rs := newReplaySite(t)

	rwp := http.NewServeMux()
	for path, file := range map[string]string{"/{$}": "index.html", "/ui.js": "ui.js", "/sw.js": "sw.js"} {
		file := filepath.Join(pkg, file)
		rwp.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, file) })
	}
	replayer := httptest.NewServer(rwp)
	defer replayer.Close()
	lookup := httptest.NewServer(rs.server(t, Options{ReplayURL: replayer.URL + "/"}))
	defer lookup.Close()

	b := testkit.StartBrowser(t, chromium)
	b.Open(lookup.URL+"/?url="+url.QueryEscape(rs.home), 1200, 900)
	var card struct {
		Link, Withheld string
	}
	b.Eval(`({link: document.querySelector("a.replay")?.href ?? "", withheld: document.querySelector("dd.withheld")?.textContent ?? ""})`, &card)
	if card.Link == "" {
		t.Fatal("the card of a released page has no Open as page link")
	}
	if !regexp.MustCompile(`^1 resource of this page is still under embargo until .+; until then the replay shows the page without what is under embargo\.$`).MatchString(card.Withheld) {
		t.Errorf("the card says %q about the photo under embargo", card.Withheld)
	}
	for _, width := range []int{1280, 390} { // a laptop's width and a phone's; the second load finds the service worker there
		got := replayAt(t, b, card.Link, width)
		shot := filepath.Join(testkit.ScreenshotDir(t), fmt.Sprintf("replaywebpage-replay-%d.png", width))
		b.Screenshot(shot, width)
		t.Logf("screenshot of the replay at %d px: %s", width, shot)
		if fi, err := os.Stat(shot); err != nil || fi.Size() < 10<<10 {
			t.Errorf("screenshot %s missing or nearly empty: %v", shot, err)
		}
		t.Logf("replayed at %d px: %+v", width, got)
		if got.Title != "Harbour test page" || got.Headline != "Replayed from the archive" {
			t.Errorf("%d px: replayed title %q, headline %q", width, got.Title, got.Headline)
		}
		if got.Color != "rgb(0, 90, 30)" {
			t.Errorf("%d px: headline colour %q: the archived stylesheet is not applied", width, got.Color)
		}
		if got.LogoWidth != rs.logoW || got.LogoHeight != rs.logoH {
			t.Errorf("%d px: logo decoded at %dx%d, want %dx%d: the archived image is not replayed", width, got.LogoWidth, got.LogoHeight, rs.logoW, rs.logoH)
		}
		if got.BgWidth != 4 {
			t.Errorf("%d px: the stylesheet's background image: width %d, want 4", width, got.BgWidth)
		}
		if got.PhotoWidth != 0 {
			t.Errorf("%d px: the photo under embargo replays (width %d)", width, got.PhotoWidth)
		}
	}
}

// replayAt opens link in b at width px and waits up to 90 s for replayProbe to find the
// replayed page with its images settled; it fails the test when none is found.
func replayAt(t *testing.T, b *testkit.Browser, link string, width int) replayed {
	t.Helper()
	b.Open("about:blank", width, 900) // a link that differs only in its fragment would not load again
	b.Open(link, width, 900)
	var got replayed
	deadline := time.Now().Add(90 * time.Second)
	for {
		b.EvalAwait(replayProbe, &got)
		if got.Found && got.LogoComplete && got.PhotoComplete || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !got.Found {
		var text string
		b.Eval(`document.documentElement.outerHTML.slice(0, 3000)`, &text)
		t.Fatalf("ReplayWeb.page shows no replayed page at %d px after 90s (link %s):\n%s", width, link, html.UnescapeString(text))
	}
	return got
}
