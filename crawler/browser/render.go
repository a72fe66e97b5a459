package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Bounds of a render besides Options.Wait.
const (
	idleAfter = 500 * time.Millisecond // no request in flight for this long: the network is idle
	grace     = 5 * time.Second        // for reading the DOM once Wait is over
)

// errCrashed is a render whose tab's renderer crashed.
var errCrashed = errors.New("the page's renderer crashed")

// Render loads pageURL in a tab of its own, every request answered by load, scrolls it and
// returns the links of its rendered DOM. It waits for a free tab. A render that fails is tried
// once more, in a restarted browser when the browser crashed or stopped answering.
func (b *Browser) Render(ctx context.Context, pageURL string, load Load) (Page, error) {
	select {
	case b.tabs <- struct{}{}:
	case <-ctx.Done():
		return Page{}, ctx.Err()
	}
	defer func() { <-b.tabs }()
	if err := b.startFirst(); err != nil {
		return Page{}, fmt.Errorf("render %s: %w", pageURL, err)
	}
	var err error
	for attempt := 1; attempt <= 2; attempt++ {
		bctx, gen := b.current()
		if bctx == nil {
			return Page{}, errClosed
		}
		var p Page
		if p, err = b.render(ctx, bctx, pageURL, load); err == nil {
			b.overMemory(gen)
			return p, nil
		}
		if ctx.Err() != nil {
			return Page{}, ctx.Err()
		}
		b.log.Warn("page not rendered", "url", pageURL, "attempt", attempt, "err", err)
		if !healthy(bctx) {
			if rerr := b.restart(gen, "it crashed or stopped answering", "url", pageURL); rerr != nil {
				return Page{}, fmt.Errorf("render %s: %w; restart: %w", pageURL, err, rerr)
			}
		}
	}
	return Page{}, fmt.Errorf("render %s: %w", pageURL, err)
}

// tab is one render's state: its requests in flight and what it counted.
type tab struct {
	wg       sync.WaitGroup // answers in progress
	mu       sync.Mutex
	inflight int
	last     time.Time // when a request last began or ended
	page     Page
	crashed  chan struct{}
	once     sync.Once
}

// render is one attempt of Render in the browser of bctx.
func (b *Browser) render(ctx, bctx context.Context, pageURL string, load Load) (Page, error) {
	tctx, closeTab := chromedp.NewContext(bctx)
	defer closeTab()
	lctx, stopLoads := context.WithCancel(ctx) // loads still waiting when the render ends give up
	t := &tab{last: time.Now(), crashed: make(chan struct{})}
	defer t.wg.Wait()
	defer stopLoads()
	err := chromedp.Listen(tctx, func(ev any) {
		switch ev := ev.(type) {
		case *fetch.EventRequestPaused:
			t.begin()
			go t.answer(lctx, tctx, ev, load)
		case *network.EventWebSocketCreated:
			t.mu.Lock()
			t.page.WebSocket++
			t.mu.Unlock()
			b.log.Info("WebSocket refused: the browser does not open connections", "page", pageURL, "url", ev.URL)
		case *inspector.EventTargetCrashed:
			t.once.Do(func() { close(t.crashed) })
		}
	})
	if err != nil {
		return Page{}, err
	}
	if err := chromedp.Do(tctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}}})
		return err
	})); err != nil {
		return Page{}, fmt.Errorf("intercept requests: %w", err)
	}

	wctx, cancel := context.WithTimeout(tctx, b.opt.Wait)
	defer cancel()
	go func() {
		select {
		case <-t.crashed:
			cancel()
		case <-wctx.Done():
		}
	}()
	if err := chromedp.Do(wctx, chromedp.Navigate(pageURL)); err != nil && wctx.Err() == nil {
		return Page{}, fmt.Errorf("navigate: %w", err)
	}
	t.touch() // the load event's handlers may start requests of their own
	settled := t.idle(wctx)
	for i := 0; i < b.opt.Scroll && wctx.Err() == nil; i++ {
		more, err := chromedp.Run(wctx, chromedp.Evaluate[bool](ScrollScript))
		if err != nil || !more {
			break
		}
		t.touch() // what the scroll brings into view starts loading a moment later
		settled = t.idle(wctx)
	}
	select {
	case <-t.crashed:
		return Page{}, errCrashed
	default:
	}
	gctx, gcancel := context.WithTimeout(tctx, grace)
	defer gcancel()
	links, err := chromedp.Run(gctx, chromedp.Evaluate[[]string](linksScript))
	if err != nil {
		return Page{}, fmt.Errorf("read the rendered DOM: %w", err)
	}
	var dom string
	var view []byte
	if b.opt.Snapshot.DOM {
		if dom, err = chromedp.Run(gctx, chromedp.Evaluate[string](domScript)); err != nil {
			return Page{}, fmt.Errorf("read the rendered DOM: %w", err)
		}
	}
	if b.opt.Snapshot.View {
		if _, err = chromedp.Run(gctx, chromedp.Evaluate[bool](`(window.scrollTo(0, 0), true)`)); err == nil {
			view, err = chromedp.Run(gctx, chromedp.CaptureScreenshot())
		}
		if err != nil {
			return Page{}, fmt.Errorf("screenshot: %w", err)
		}
	}
	stopLoads()
	t.wg.Wait()
	t.mu.Lock()
	p := t.page
	t.mu.Unlock()
	p.Links, p.Settled, p.View = links, settled, view
	if b.opt.Snapshot.DOM {
		p.DOM = []byte(dom)
	}
	return p, nil
}

// OwnFavicon reports whether a request of this URL and resource type is the favicon Chromium asks
// for on its own, not one the page made (a page's declared icon is a link: of type Other only
// when undeclared).
func OwnFavicon(rawURL string, typ network.ResourceType) bool {
	u, err := url.Parse(rawURL)
	return err == nil && typ == network.ResourceTypeOther && u.Path == "/favicon.ico"
}

// ScrollScript scrolls one viewport down and says whether the page moved: one step of the
// bounded scroll that triggers lazy loads.
const ScrollScript = `(() => { const y = window.scrollY; window.scrollBy(0, window.innerHeight); return window.scrollY > y; })()`

// domScript serializes the rendered DOM: its doctype, if any, and the root element's outerHTML.
const domScript = `(() => { const d = document.doctype; return (d ? "<!DOCTYPE " + d.name + ">\n" : "") + document.documentElement.outerHTML; })()`

// linksScript lists the http(s) links of the rendered DOM.
const linksScript = `Array.from(document.querySelectorAll('a[href], area[href]'), a => a.href).filter(h => /^https?:/i.test(h))`

// idle waits until no request has been in flight for idleAfter, or ctx ends; it reports which.
func (t *tab) idle(ctx context.Context) bool {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		t.mu.Lock()
		quiet := t.inflight == 0 && time.Since(t.last) >= idleAfter
		t.mu.Unlock()
		if quiet {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// touch restarts the wait for an idle network from now.
func (t *tab) touch() {
	t.mu.Lock()
	t.last = time.Now()
	t.mu.Unlock()
}

// begin counts a request in flight.
func (t *tab) begin() {
	t.wg.Add(1)
	t.mu.Lock()
	t.inflight++
	t.page.Requests++
	t.last = time.Now()
	t.mu.Unlock()
}

// answer has load answer one paused request and hands the answer to the browser.
func (t *tab) answer(ctx, tctx context.Context, ev *fetch.EventRequestPaused, load Load) {
	defer t.wg.Done()
	target := chromedp.FromContext(tctx).Target
	var resp Response
	switch {
	case ev.Request.Method != "GET":
		resp.Failed = "only GET requests are archived"
	case OwnFavicon(ev.Request.URL, ev.ResourceType):
		resp.Failed = "the browser's own favicon request" // a page's declared icon is in its HTML
	default:
		resp = load(ctx, Request{URL: ev.Request.URL, Method: ev.Request.Method, Type: string(ev.ResourceType)})
	}
	// The tab may be closing: an answer it cannot take any more is dropped.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	if resp.Failed != "" {
		cdp.Call(actx, target, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	} else {
		var hs []*fetch.HeaderEntry
		for k, vs := range resp.Header {
			for _, v := range vs {
				hs = append(hs, &fetch.HeaderEntry{Name: k, Value: v})
			}
		}
		cdp.Call(actx, target, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: int64(resp.Status), ResponseHeaders: hs, Body: resp.Body})
	}
	t.mu.Lock()
	t.inflight--
	if resp.Failed != "" {
		t.page.Refused++
	}
	t.last = time.Now()
	t.mu.Unlock()
}
