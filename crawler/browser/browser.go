// Package browser renders pages in headless Chromium driven over the DevTools protocol
// (chromedp), for a crawl that must capture what a page's scripts load. The browser never
// touches the network: every request a page makes is paused (the Fetch domain) and answered by
// the caller's Load function, which fetches it politely, or refuses it; a request that escaped
// interception would meet a dead proxy. A fixed number of tabs render at once; a browser that
// crashed or hangs is restarted and the page tried once more.
package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// Options are a browser's settings; zero values take the defaults noted.
type Options struct {
	Chromium string        // the chromium executable; "" looks chromium up on PATH (Find)
	Tabs     int           // pages rendered at once (default 2)
	Wait     time.Duration // longest time a page is given to load and settle (default 10s)
	Scroll   int           // viewport heights scrolled down to trigger lazy loads; 0 takes the default (5), negative none
	Profiles string        // directory of Chromium's profiles, emptied by Start (a killed run's are left there); "" a temporary one per browser
	Memory   int64         // bytes of memory (groupMemory: Chromium's processes' PSS summed) past which it is restarted after a page; 0 the default (1 GiB), negative no bound
	Snapshot Snapshot      // what of the rendered page Render keeps besides its links
	Lazy     bool          // Start only finds chromium; the first Render starts it
	Log      *slog.Logger  // nil discards
}

// Snapshot says what Render keeps of a rendered page: its DOM's outerHTML, a screenshot of its
// viewport (PNG, scrolled back to the top), both or neither.
type Snapshot struct{ DOM, View bool }

// ParseSnapshot reads a Snapshot from its name: off (or ""), dom, screenshot or both.
func ParseSnapshot(s string) (Snapshot, error) {
	switch s {
	case "", "off":
		return Snapshot{}, nil
	case "dom":
		return Snapshot{DOM: true}, nil
	case "screenshot":
		return Snapshot{View: true}, nil
	case "both":
		return Snapshot{DOM: true, View: true}, nil
	}
	return Snapshot{}, fmt.Errorf("%w: use off, dom, screenshot or both", ErrSnapshot)
}

// String is the name ParseSnapshot reads.
func (s Snapshot) String() string {
	switch {
	case s.DOM && s.View:
		return "both"
	case s.DOM:
		return "dom"
	case s.View:
		return "screenshot"
	}
	return "off"
}

// ErrSnapshot is ParseSnapshot's error for a name it does not know.
var ErrSnapshot = errors.New("unknown snapshot")

// Defaults are the settings of a browser that sets none.
func Defaults() Options { return Options{Tabs: 2, Wait: 10 * time.Second, Scroll: 5, Memory: 1 << 30} }

// Request is one request a page made, paused until Load answers it.
type Request struct {
	URL    string
	Method string
	Type   string // the resource type Chromium gives: Document, Stylesheet, Image, Fetch, XHR, Font…
}

// Response is Load's answer: a response served to the page, or a refusal (Failed).
type Response struct {
	Status int
	Header http.Header
	Body   []byte // the payload, Content-Encoding undone
	Failed string // why the request was refused (disallowed, failed…); "" when served
}

// Load answers one request of a page: from the archive, or fetched and captured.
type Load func(ctx context.Context, r Request) Response

// Page is what rendering a page found.
type Page struct {
	Links     []string // href of each link (a, area) of the rendered DOM, absolute
	Requests  int      // requests the page made (and Load answered)
	Refused   int      // of them, refused
	WebSocket int      // WebSockets the page tried to open (refused)
	Settled   bool     // the network fell idle before Wait ended
	DOM       []byte   // the rendered DOM's outerHTML, after its doctype (Options.Snapshot.DOM)
	View      []byte   // a PNG screenshot of the viewport at the top of the page (Options.Snapshot.View)
}

// ErrNoChromium is Find's error when no chromium executable is found.
var ErrNoChromium = errors.New("chromium not found: install it (apt-get install chromium) or set crawl.browser.chromium to its path")

// Find returns the chromium executable: path when given (it must be executable), else the
// first of chromium, chromium-browser and google-chrome on PATH.
func Find(path string) (string, error) {
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("%w: %s: %w", ErrNoChromium, path, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// Browser is one headless Chromium with a fixed number of tabs, restarted when it dies.
type Browser struct {
	opt    Options
	path   string
	parent context.Context // what ends every browser started, restarts included
	log    *slog.Logger
	tabs   chan struct{}

	restarting sync.Mutex // one restart at a time
	firstErr   error      // why a lazy browser's first start failed (ErrStart): it is not tried again
	mu         sync.Mutex
	gen        int // counts starts: a restart is asked for one generation, once
	ctx        context.Context
	cancel     context.CancelFunc
	started    int  // browsers started, restarts included
	closed     bool // Close was called: nothing starts again

	peak atomic.Int64 // the most memory measured (memory.go)
}

// errClosed is the error of a render after Close.
var errClosed = errors.New("browser closed")

// ErrStart is wrapped by Render's error when a lazy browser's chromium could not be started at
// all (a sandbox that forbids it, a binary that is not Chromium): a crawl that asked for a
// browser cannot go on as a plain one, so it stops on it, as Start's error stops it up front.
var ErrStart = errors.New("chromium could not be started")

// Start finds chromium and starts it (with Options.Lazy, on the first Render); ctx ends it
// (Close too).
func Start(ctx context.Context, opt Options) (*Browser, error) {
	d := Defaults()
	if opt.Tabs <= 0 {
		opt.Tabs = d.Tabs
	}
	if opt.Wait <= 0 {
		opt.Wait = d.Wait
	}
	if opt.Scroll == 0 {
		opt.Scroll = d.Scroll
	}
	if opt.Memory == 0 {
		opt.Memory = d.Memory
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	path, err := Find(opt.Chromium)
	if err != nil {
		return nil, err
	}
	if opt.Profiles != "" {
		if err := os.RemoveAll(opt.Profiles); err != nil {
			return nil, fmt.Errorf("browser profiles: %w", err)
		}
		if err := os.MkdirAll(opt.Profiles, 0o700); err != nil {
			return nil, fmt.Errorf("browser profiles: %w", err)
		}
	}
	b := &Browser{opt: opt, path: path, parent: ctx, log: opt.Log, tabs: make(chan struct{}, opt.Tabs)}
	if !opt.Lazy {
		if err := b.start(); err != nil {
			return nil, err
		}
	}
	context.AfterFunc(ctx, b.Close)
	go b.sample(ctx)
	return b, nil
}

// start launches a chromium and waits for its DevTools connection.
func (b *Browser) start() error {
	flags := b.flags()
	profile := ""
	if b.opt.Profiles != "" {
		b.mu.Lock()
		profile = filepath.Join(b.opt.Profiles, strconv.Itoa(b.started+1))
		b.mu.Unlock()
		flags = append(flags, chromedp.UserDataDir(profile))
	}
	actx, acancel := chromedp.NewExecAllocator(context.WithoutCancel(b.parent), flags...)
	ctx, cancel := chromedp.NewContext(actx)
	stop := func() {
		cancel()
		acancel() // waits for chromium to exit
		if profile != "" {
			removeProfile(profile)
		}
	}
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.GetVersion, cdp.Empty{}); err != nil {
		stop()
		return fmt.Errorf("start chromium %s: %w", b.path, err)
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		stop()
		return errClosed
	}
	old := b.cancel
	b.ctx, b.cancel = ctx, stop
	b.gen++
	b.started++
	first := b.started == 1
	b.mu.Unlock()
	if first {
		b.log.Info("chromium started", "path", b.path, "lazy", b.opt.Lazy)
	}
	if old != nil {
		old()
	}
	return nil
}

// flags are chromium's: headless, no background traffic, its own process group and a dead proxy
// for any request that Fetch interception would miss (loopback included).
func (b *Browser) flags() []chromedp.ExecAllocatorOption {
	var heap []chromedp.ExecAllocatorOption
	if b.opt.Memory > 0 { // a page's script heap within half the bound: past it, its renderer fails alone
		heap = append(heap, chromedp.Flag("js-flags", fmt.Sprintf("--max-old-space-size=%d", max(b.opt.Memory>>21, 64))))
	}
	return append(append(chromedp.DefaultExecAllocatorOptions[:], heap...),
		chromedp.ExecPath(b.path),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("proxy-server", "http://127.0.0.1:1"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.WindowSize(1280, 900),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			// Its own process group, killed whole; and killed with the crawl, even by kill -9.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		}),
	)
}

// current is the running browser's context and generation.
func (b *Browser) current() (context.Context, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ctx, b.gen
}

// startFirst starts the first browser of a lazy one, unless it runs already (or was closed).
func (b *Browser) startFirst() error {
	b.restarting.Lock()
	defer b.restarting.Unlock()
	b.mu.Lock()
	first, closed := b.started == 0, b.closed
	b.mu.Unlock()
	if closed {
		return errClosed
	}
	if b.firstErr != nil || !first {
		return b.firstErr
	}
	if err := b.start(); err != nil {
		b.firstErr = fmt.Errorf("%w: %w", ErrStart, err)
	}
	return b.firstErr
}

// Started is how many browsers were started: 1, plus one per restart (0 for a lazy one that
// rendered nothing).
func (b *Browser) Started() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.started
}

// healthy reports whether the browser of ctx answers within a few seconds.
func healthy(ctx context.Context) bool {
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := chromedp.CallBrowser(hctx, cdpbrowser.GetVersion, cdp.Empty{})
	return err == nil
}

// restart replaces the browser of generation gen, unless another tab did already; why (with
// its log attributes) is logged.
func (b *Browser) restart(gen int, why string, attrs ...any) error {
	b.restarting.Lock()
	defer b.restarting.Unlock()
	if _, g := b.current(); g != gen {
		return nil
	}
	b.log.Warn("browser restarted: "+why, attrs...)
	return b.start()
}

// removeProfile removes a profile directory, trying again for a moment: Chromium's helper
// processes may still write there as the main one exits.
func removeProfile(dir string) {
	for try := 0; os.RemoveAll(dir) != nil && try < 20; try++ {
		time.Sleep(50 * time.Millisecond)
	}
}

// Close ends the browser (its whole process group) and waits for it; nil-safe.
func (b *Browser) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	stop := b.cancel
	b.cancel, b.ctx, b.closed = nil, nil, true
	b.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// pid is the running chromium's process id (its process group's too), 0 when none runs.
func (b *Browser) pid() int {
	ctx, _ := b.current()
	if ctx == nil {
		return 0
	}
	if c := chromedp.FromContext(ctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		return c.Browser.Process().Pid
	}
	return 0
}
