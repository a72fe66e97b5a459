package testkit

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// ChromiumPath finds Debian's chromium. Without it the test skips with a clear message, unless
// CI is set: CI installs it (.ci/run), so there its absence is a failure.
func ChromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed but CI is set: .ci/run installs it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed: apt-get install -y chromium to run the browser test")
	return ""
}

// ChromiumCommand is chromium with args in a process group of its own and a fresh profile
// directory; the group is killed when ctx ends, and the profile removed at the test's end once
// nothing writes it any more (Chromium's helper processes outlive the main one for a moment,
// which made t.TempDir's own cleanup fail with "directory not empty").
func ChromiumCommand(t *testing.T, ctx context.Context, chromium string, args ...string) *exec.Cmd {
	t.Helper()
	profile, err := os.MkdirTemp("", "archivectl-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for try := 0; ; try++ {
			err := os.RemoveAll(profile)
			if err == nil {
				return
			}
			if try == 50 {
				t.Logf("the browser profile %s stays: %v", profile, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	cmd := exec.CommandContext(ctx, chromium, append([]string{"--user-data-dir=" + profile}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// Browser is a headless Chromium driven over the DevTools protocol: one page whose viewport the
// test sets (a phone's 390 px is below the smallest window headless Chromium opens), that it
// navigates, measures with scripts the page's own Content-Security-Policy does not govern, and
// photographs whole.
type Browser struct {
	t      *testing.T
	ws     *websocket.Conn
	id     int
	events []cdpMessage // events received while waiting for a call's answer
}

// cdpMessage is one DevTools protocol message: an answer (ID) or an event (Method).
type cdpMessage struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// StartBrowser starts chromium with a DevTools endpoint on loopback and attaches to its page.
func StartBrowser(t *testing.T, chromium string) *Browser {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := ChromiumCommand(t, ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--remote-allow-origins=*", "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`DevTools listening on ws://([^/\s]+)/`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	var addr string
	select {
	case addr = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("chromium did not open its DevTools endpoint")
	}
	var targets []struct{ Type, WebSocketDebuggerURL string }
	for try := 0; ; try++ {
		resp, err := http.Get("http://" + addr + "/json/list")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		if err != nil {
			t.Fatalf("DevTools target list: %v", err)
		}
		if i := indexPage(targets); i >= 0 {
			ws, err := websocket.Dial(targets[i].WebSocketDebuggerURL, "", "http://127.0.0.1/")
			if err != nil {
				t.Fatalf("DevTools connection: %v", err)
			}
			ws.MaxPayloadBytes = 64 << 20
			t.Cleanup(func() { ws.Close() })
			b := &Browser{t: t, ws: ws}
			b.Call("Page.enable", nil, nil)
			return b
		}
		if try == 50 {
			t.Fatalf("chromium has no page: %+v", targets)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func indexPage(targets []struct{ Type, WebSocketDebuggerURL string }) int {
	for i, tg := range targets {
		if tg.Type == "page" && tg.WebSocketDebuggerURL != "" {
			return i
		}
	}
	return -1
}

// Call sends one command and decodes its result into result (when not nil).
func (b *Browser) Call(method string, params, result any) {
	b.t.Helper()
	b.id++
	if params == nil {
		params = struct{}{}
	}
	b.ws.SetDeadline(time.Now().Add(60 * time.Second))
	if err := websocket.JSON.Send(b.ws, map[string]any{"id": b.id, "method": method, "params": params}); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	for {
		var m cdpMessage
		if err := websocket.JSON.Receive(b.ws, &m); err != nil {
			b.t.Fatalf("%s: %v", method, err)
		}
		switch {
		case m.ID == b.id && m.Error != nil:
			b.t.Fatalf("%s: %s", method, m.Error.Message)
		case m.ID == b.id:
			if result != nil {
				if err := json.Unmarshal(m.Result, result); err != nil {
					b.t.Fatalf("%s result: %v", method, err)
				}
			}
			return
		case m.Method != "":
			b.events = append(b.events, m)
		}
	}
}

// Wait returns once the event method has arrived (it may have come during an earlier call).
func (b *Browser) Wait(method string) {
	b.t.Helper()
	for {
		for i, e := range b.events {
			if e.Method == method {
				b.events = b.events[i+1:]
				return
			}
		}
		b.events = b.events[:0]
		b.ws.SetDeadline(time.Now().Add(60 * time.Second))
		var m cdpMessage
		if err := websocket.JSON.Receive(b.ws, &m); err != nil {
			b.t.Fatalf("waiting for %s: %v", method, err)
		}
		if m.Method != "" {
			b.events = append(b.events, m)
		}
	}
}

// Open sets the viewport (a phone's, touch and meta viewport honoured, below 600 px) and loads url.
func (b *Browser) Open(url string, width, height int) {
	b.t.Helper()
	b.Call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, nil)
	b.events = b.events[:0]
	b.Call("Page.navigate", map[string]any{"url": url}, nil)
	b.Wait("Page.loadEventFired")
}

// Eval runs a script in the page and decodes the value it returns into v.
func (b *Browser) Eval(script string, v any) {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	b.Call("Runtime.evaluate", map[string]any{"expression": script, "returnByValue": true}, &r)
	if r.ExceptionDetails != nil {
		b.t.Fatalf("script failed: %s", r.ExceptionDetails.Text)
	}
	if err := json.Unmarshal(r.Result.Value, v); err != nil {
		b.t.Fatalf("script value %s: %v", r.Result.Value, err)
	}
}

// Screenshot writes a PNG of the whole page, as wide as the viewport, to path.
func (b *Browser) Screenshot(path string, width int) {
	b.t.Helper()
	var metrics struct {
		CSSContentSize struct{ Height float64 } `json:"cssContentSize"`
	}
	b.Call("Page.getLayoutMetrics", nil, &metrics)
	var shot struct{ Data string }
	b.Call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": width, "height": metrics.CSSContentSize.Height, "scale": 1}}, &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(png) < 8 || !strings.HasPrefix(string(png), "\x89PNG") {
		b.t.Fatalf("screenshot is not a PNG (%d bytes): %v", len(png), err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(fmt.Errorf("screenshot: %w", err))
	}
}

// EvalAwait runs a script whose value is a promise and decodes what it resolves to into v.
func (b *Browser) EvalAwait(script string, v any) {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.Call("Runtime.evaluate", map[string]any{"expression": script, "returnByValue": true, "awaitPromise": true}, &r)
	if e := r.ExceptionDetails; e != nil {
		msg := e.Text
		if e.Exception != nil {
			msg += " " + e.Exception.Description
		}
		b.t.Fatalf("script failed: %s", msg)
	}
	if err := json.Unmarshal(r.Result.Value, v); err != nil {
		b.t.Fatalf("script value %.200s: %v", r.Result.Value, err)
	}
}

// EvalAndWait runs a script that makes the page emit event (a form submitted: Page.loadEventFired),
// decodes its value into v, and returns once that event, not an earlier one, has arrived.
func (b *Browser) EvalAndWait(script string, v any, event string) {
	b.t.Helper()
	b.events = b.events[:0]
	b.Eval(script, v)
	b.Wait(event)
}

// ScreenshotDir is where browser tests write their screenshots: $ARCHIVECTL_SCREENSHOTS when
// set (made if need be), kept after the test, else the test's temporary directory.
func ScreenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ARCHIVECTL_SCREENSHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
