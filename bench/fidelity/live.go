package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	crawlbrowser "github.com/archivectl/archivectl/crawler/browser"
	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The viewport of every screenshot, live and replayed.
const (
	viewW = 1280
	viewH = 900
)

const (
	idleAfter = 500 * time.Millisecond // no request in flight this long: the network is idle
	pageWait  = 10 * time.Second       // the most a page is given, as crawl.browser.wait
	scrolls   = 5                      // viewport heights scrolled, as crawl.browser.scroll
)

// chromiumPath finds Debian's chromium.
func chromiumPath() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("chromium is not installed: apt-get install -y chromium")
}

// browser is one headless Chromium; each load opens a tab of its own with the cache off.
type browser struct {
	ctx    context.Context
	cancel func()
}

func startBrowser(ctx context.Context, chromium string) (*browser, error) {
	profile, err := os.MkdirTemp("", "fidelity-chromium-")
	if err != nil {
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.UserDataDir(profile), chromedp.Flag("hide-scrollbars", true), chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(viewW, viewH))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	if _, err := chromedp.CallBrowser(bctx, cdpbrowser.GetVersion, cdp.Empty{}); err != nil {
		bcancel()
		acancel()
		os.RemoveAll(profile)
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	return &browser{ctx: bctx, cancel: func() { bcancel(); acancel(); os.RemoveAll(profile) }}, nil
}

func (b *browser) Close() { b.cancel() }

// liveLoad is what Chromium loaded for a page on the live site, and how the page looked.
type liveLoad struct {
	URLs    []string // every http(s) request the page made, its own included, fragments cut
	Settled bool     // the network went idle within pageWait
	Shot    []byte   // PNG of the viewport at the top of the page, after the scrolls
}

// load opens pageURL in a new tab with the network watched, scrolls it as crawl --browser does,
// and photographs the top of the page.
func (b *browser) load(pageURL string) (liveLoad, error) {
	tctx, cancel := chromedp.NewContext(b.ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		urls     = map[string]bool{}
		inflight = map[network.RequestID]bool{}
		last     = time.Now()
	)
	if err := chromedp.Listen(tctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if u, ok := counted(e.Request.URL, e.Type); ok {
				urls[u] = true
			}
			inflight[e.RequestID] = true
			last = time.Now()
		case *network.EventLoadingFinished:
			delete(inflight, e.RequestID)
			last = time.Now()
		case *network.EventLoadingFailed:
			delete(inflight, e.RequestID)
			last = time.Now()
		}
	}); err != nil {
		return liveLoad{}, err
	}
	idle := func(ctx context.Context) bool {
		for {
			mu.Lock()
			quiet := len(inflight) == 0 && time.Since(last) >= idleAfter
			mu.Unlock()
			if quiet {
				return true
			}
			select {
			case <-ctx.Done():
				return false
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	if _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); err != nil {
		return liveLoad{}, err
	}
	if _, err := chromedp.Call(tctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		return liveLoad{}, err
	}
	if err := viewport(tctx, viewW, viewH); err != nil {
		return liveLoad{}, err
	}
	wctx, wcancel := context.WithTimeout(tctx, pageWait)
	defer wcancel()
	if err := chromedp.Do(wctx, chromedp.Navigate(pageURL)); err != nil && wctx.Err() == nil {
		return liveLoad{}, fmt.Errorf("navigate %s: %w", pageURL, err)
	}
	settled := idle(wctx)
	for i := 0; i < scrolls && wctx.Err() == nil; i++ {
		more, err := chromedp.Run(wctx, chromedp.Evaluate[bool](crawlbrowser.ScrollScript))
		if err != nil || !more {
			break
		}
		mu.Lock()
		last = time.Now()
		mu.Unlock()
		settled = idle(wctx)
	}
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[any](`window.scrollTo(0, 0)`)); err != nil {
		return liveLoad{}, err
	}
	time.Sleep(300 * time.Millisecond)
	shot, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
	if err != nil {
		return liveLoad{}, fmt.Errorf("screenshot %s: %w", pageURL, err)
	}
	mu.Lock()
	l := liveLoad{Settled: settled, Shot: shot}
	for u := range urls {
		l.URLs = append(l.URLs, u)
	}
	mu.Unlock()
	sort.Strings(l.URLs)
	return l, nil
}

// viewport sets the tab's viewport.
func viewport(ctx context.Context, w, h int64) error {
	_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: w, Height: h, DeviceScaleFactor: 1})
	return err
}

// counted says whether a request Chromium made counts as a resource the page loaded, and the URL
// it is compared by: http(s) only (data: and blob: stay in the browser), the fragment cut, and
// not the favicon Chromium asks for on its own (crawlbrowser.OwnFavicon).
func counted(raw string, typ network.ResourceType) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	if crawlbrowser.OwnFavicon(raw, typ) {
		return "", false
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), true
}

// key is the form URLs are compared in across tools: scheme and host lower case, no fragment.
func key(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String()
}
