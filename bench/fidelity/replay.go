package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// errNoReplayer says the ReplayWeb.page package is not installed.
var errNoReplayer = errors.New("ReplayWeb.page is not installed: export ARCHIVECTL_REPLAY_NODE_DIR=$(bash test/replay/install.sh)")

// replayWebPage finds the replaywebpage package test/replay/install.sh installs (index.html,
// ui.js, sw.js: ReplayWeb.page as its public instance serves it) from ARCHIVECTL_REPLAY_NODE_DIR.
func replayWebPage() (string, error) {
	dir := os.Getenv("ARCHIVECTL_REPLAY_NODE_DIR")
	if dir == "" {
		return "", errNoReplayer
	}
	pkg := filepath.Join(dir, "node_modules", "replaywebpage")
	for _, f := range []string{"index.html", "ui.js", "sw.js"} {
		if _, err := os.Stat(filepath.Join(pkg, f)); err != nil {
			return "", fmt.Errorf("%w (%v)", errNoReplayer, err)
		}
	}
	return pkg, nil
}

// replayer is ReplayWeb.page served from loopback with the WACZ packages beside it (same origin:
// the app loads a package by URL, by ranges).
type replayer struct {
	URL          string
	srv          *http.Server
	growW, growH int64 // what the app takes around the replay's frame, once a replay measured it
}

func startReplayer(pkg string, wacz map[string]string) (*replayer, error) {
	mux := http.NewServeMux()
	for p, file := range map[string]string{"/{$}": "index.html", "/ui.js": "ui.js", "/sw.js": "sw.js"} {
		file := filepath.Join(pkg, file)
		mux.HandleFunc("GET "+p, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, file) })
	}
	for name, file := range wacz {
		mux.HandleFunc("GET /"+name+".wacz", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, file) })
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rp := &replayer{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: mux}}
	go rp.srv.Serve(ln)
	return rp, nil
}

func (rp *replayer) Close() { rp.srv.Close() }

// frameProbe finds the replay's frame inside ReplayWeb.page (through the app's shadow roots):
// its box in the window, and whether the replayed document in it has loaded.
const frameProbe = `(() => {
  const stack = [document];
  while (stack.length) {
    const n = stack.pop();
    for (const el of n.querySelectorAll("*")) {
      if (el.shadowRoot) stack.push(el.shadowRoot);
      if (el.tagName === "IFRAME" && /mp_\//.test(el.src || "")) {
        const r = el.getBoundingClientRect();
        let ready = false;
        try { ready = el.contentDocument && el.contentDocument.readyState === "complete" && el.contentDocument.body !== null; } catch (e) {}
        return {found: true, ready, x: r.x, y: r.y, w: r.width, h: r.height};
      }
    }
  }
  return {found: false};
})()`

type frameBox struct {
	Found, Ready bool
	X, Y, W, H   float64
}

// replayShot opens pageURL, captured at ts, from the package name in ReplayWeb.page and
// photographs the replay's frame at the live viewport's size: the window is as much taller and
// wider as the app's bar and margins take, so that the frame is viewW x viewH from the start (a
// page sizing itself to its window at load, a canvas, sees the live size). The first replay
// measures the app's margins and loads again with them.
func (b *browser) replayShot(rp *replayer, name, pageURL, ts string) ([]byte, error) {
	tctx, cancel := chromedp.NewContext(b.ctx)
	defer cancel()
	ctx, wcancel := context.WithTimeout(tctx, 90*time.Second)
	defer wcancel()
	link := rp.URL + "/?source=" + url.QueryEscape(rp.URL+"/"+name+".wacz") + "#view=replay&url=" + url.QueryEscape(pageURL) + "&ts=" + ts
	if err := viewport(ctx, viewW+rp.growW, viewH+rp.growH); err != nil {
		return nil, err
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		return nil, fmt.Errorf("open %s: %w", link, err)
	}
	var box frameBox
	for {
		var err error
		if box, err = chromedp.Run(ctx, chromedp.Evaluate[frameBox](frameProbe)); err != nil {
			return nil, fmt.Errorf("find the replay frame: %w", err)
		}
		if box.Found && box.Ready {
			gw, gh := rp.growW+int64(viewW-box.W+0.5), rp.growH+int64(viewH-box.H+0.5)
			if gw == rp.growW && gh == rp.growH {
				break
			}
			rp.growW, rp.growH = gw, gh
			if err := viewport(ctx, viewW+gw, viewH+gh); err != nil {
				return nil, err
			}
			if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
				return nil, fmt.Errorf("reload %s: %w", link, err)
			}
			continue
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("ReplayWeb.page shows no replay of %s after 90 s (%+v)", pageURL, box)
		case <-time.After(250 * time.Millisecond):
		}
	}
	// What the frame's scripts load once it has loaded: the same settling time as the live page.
	time.Sleep(2 * idleAfter)
	box, err := chromedp.Run(ctx, chromedp.Evaluate[frameBox](frameProbe))
	if err != nil {
		return nil, err
	}
	shot, err := chromedp.Call(ctx, cdppage.CaptureScreenshot, cdppage.CaptureScreenshotParams{Format: cdppage.CaptureScreenshotFormatPng,
		Clip: &cdppage.Viewport{X: box.X, Y: box.Y, Width: viewW, Height: viewH, Scale: 1}})
	if err != nil {
		return nil, err
	}
	return shot.Data, nil
}
