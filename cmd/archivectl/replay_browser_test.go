package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/internal/testkit"
)

// scriptedProbe finds the replayed page inside ReplayWeb.page (through the app's shadow roots
// and same-origin frames, down to the document that has the page's headline, loaded) and says
// what its script put there: the text it read from the JSON it fetched, and the decoded width of
// the image that JSON named.
const scriptedProbe = `(() => {
  const stack = [document];
  while (stack.length) {
    const n = stack.pop();
    const h = n.getElementById ? n.getElementById("headline") : null;
    if (h && h.ownerDocument.readyState !== "complete") return {found: false};
    if (h) {
      const doc = h.ownerDocument, img = doc.getElementById("dyn");
      return {found: true, text: doc.getElementById("out").textContent, dynWidth: img ? img.naturalWidth : -1};
    }
    for (const el of n.querySelectorAll("*")) {
      if (el.shadowRoot) stack.push(el.shadowRoot);
      if (el.tagName === "IFRAME") { try { if (el.contentDocument) stack.push(el.contentDocument); } catch (e) {} }
    }
  }
  return {found: false};
})()`

// TestReplayWebPageBrowserCrawl crawls, through the binary, a page whose script fetches a JSON
// file and shows the text and the image it names: once plainly and once with --browser. Each
// archive is released and exported as WACZ, and replayed in ReplayWeb.page (the replaywebpage
// npm package, served from loopback with the WACZ) in headless Chromium: the --browser crawl's
// replay shows the script's text and its image decoded; the plain crawl's shows neither, as
// the JSON and the image were never captured. Screenshots of both replays are kept (see
// testkit.ScreenshotDir).
func TestReplayWebPageBrowserCrawl(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	pkg := filepath.Join(replayEngines(t), "node_modules", "replaywebpage")
	exe := archivectlBinary(t)
	const dynW, dynH, message = 120, 60, "Loaded by script: 42 harbours"
	img := image.NewRGBA(image.Rect(0, 0, dynW, dynH))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.RGBA{20, 60, 200, 255}}, image.Point{}, draw.Src)
	var dyn bytes.Buffer
	if err := png.Encode(&dyn, img); err != nil {
		t.Fatal(err)
	}
	site := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Scripted page</title></head><body>`+
				`<h1 id="headline">Scripted page</h1><p id="out"></p><script src="/app.js"></script></body></html>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `fetch("/api/data.json").then(r => r.json()).then(d => {
  document.getElementById("out").textContent = d.message;
  const im = new Image(); im.id = "dyn"; im.src = d.image; document.body.append(im);
});`)
		case "/api/data.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"message": %q, "image": "/img/dynamic.png"}`, message)
		case "/img/dynamic.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(dyn.Bytes())
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	page := site.URL + "/"

	type result struct {
		Found    bool
		Text     string
		DynWidth int
	}
	b := testkit.StartBrowser(t, chromium)
	replay := func(name string, browser bool) result {
		data := t.TempDir()
		yaml := "crawl:\n  delay: 0s\n"
		var args []string
		if browser {
			yaml += fmt.Sprintf("  browser:\n    chromium: %s\n    tabs: 1\n    wait: 20s\n", chromium)
			args = append(args, "--browser")
		}
		if r := waitCrawl(t, crawlCmd(t, exe, data, []string{page}, yaml, args...)); r.code != 0 {
			t.Fatalf("%s crawl: exit %d\nstderr:\n%s", name, r.code, r.stderr)
		}
		caps := capturesByURL(sealedCaptures(t, data, false))[page]
		if len(caps) != 1 {
			t.Fatalf("%s crawl: %d captures of the page", name, len(caps))
		}
		ts := caps[0].entry.Time.UTC().Format("20060102150405")
		mustRun(t, exe, "release", "--data", data)
		wacz := filepath.Join(t.TempDir(), "archive.wacz")
		mustRun(t, exe, "export", "--data", data, "--wacz", wacz)

		mux := http.NewServeMux()
		for path, file := range map[string]string{"/{$}": filepath.Join(pkg, "index.html"), "/ui.js": filepath.Join(pkg, "ui.js"),
			"/sw.js": filepath.Join(pkg, "sw.js"), "/archive.wacz": wacz} {
			mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, file) })
		}
		replayer := crawlertest.NewServer(mux)
		defer replayer.Close()
		b.Open(replayer.URL+"/?source="+url.QueryEscape(replayer.URL+"/archive.wacz")+"#view=replay&url="+url.QueryEscape(page)+"&ts="+ts, 1000, 700)
		var got result
		deadline := time.Now().Add(90 * time.Second)
		var settle time.Time
		for ; ; time.Sleep(500 * time.Millisecond) {
			b.EvalAwait(scriptedProbe, &got)
			if got.Text == message && got.DynWidth > 0 || time.Now().After(deadline) {
				break
			}
			if got.Found && settle.IsZero() {
				settle = time.Now().Add(5 * time.Second) // what the script could load has had time to
			}
			if !settle.IsZero() && time.Now().After(settle) {
				break
			}
		}
		shot := filepath.Join(testkit.ScreenshotDir(t), "replaywebpage-"+name+"-crawl.png")
		b.Screenshot(shot, 1000)
		if fi, err := os.Stat(shot); err != nil || fi.Size() < 5<<10 {
			t.Errorf("%s: screenshot %s missing or nearly empty: %v", name, shot, err)
		}
		t.Logf("%s crawl replayed: %+v; screenshot %s", name, got, shot)
		if !got.Found {
			t.Fatalf("%s crawl: ReplayWeb.page shows no replayed page after 90s", name)
		}
		return got
	}
	if got := replay("browser", true); got.Text != message || got.DynWidth != dynW {
		t.Errorf("the --browser crawl replays text %q and the script's image %d px wide; want %q and %d px", got.Text, got.DynWidth, message, dynW)
	}
	if got := replay("plain", false); got.Text != "" || got.DynWidth > 0 {
		t.Errorf("the plain crawl replays what only the script loads: text %q, image %d px wide", got.Text, got.DynWidth)
	}
}
