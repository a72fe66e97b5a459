package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
)

// site is a page whose script fetches JSON and inserts an image, served only through load.
var site = map[string]Response{
	"/":          {Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(`<!doctype html><a href="/static">s</a><script>fetch("/data.json").then(r => r.json()).then(d => { const a = document.createElement("a"); a.href = d.next; document.body.append(a); const i = new Image(); i.src = "/pic.png"; document.body.append(i); });</script>`)},
	"/data.json": {Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"next": "/from-script"}`)},
	"/pic.png":   {Status: 404, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("no")},
}

// TestRenderAnswersEveryRequest: the page's requests reach load, none the network (the server
// counts what reaches it), and the links its script adds are in the rendered DOM.
func TestRenderAnswersEveryRequest(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	var hits sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Store(r.URL.Path, r.UserAgent()) }))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := Start(ctx, Options{Chromium: chromium, Tabs: 1, Wait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var mu sync.Mutex
	var asked []string
	p, err := b.Render(ctx, srv.URL+"/", func(_ context.Context, r Request) Response {
		path := strings.TrimPrefix(r.URL, srv.URL)
		mu.Lock()
		asked = append(asked, path)
		mu.Unlock()
		if resp, ok := site[path]; ok {
			return resp
		}
		return Response{Failed: "not archived"}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/", "/data.json", "/pic.png"} {
		if !slices.Contains(asked, want) {
			t.Errorf("load was not asked for %s; asked %v", want, asked)
		}
	}
	if slices.Contains(asked, "/favicon.ico") {
		t.Errorf("load was asked for the browser's own favicon request; asked %v", asked)
	}
	for _, want := range []string{srv.URL + "/static", srv.URL + "/from-script"} {
		if !slices.Contains(p.Links, want) {
			t.Errorf("rendered links %v lack %s", p.Links, want)
		}
	}
	hits.Range(func(k, v any) bool {
		t.Errorf("the browser reached the server itself: %v (User-Agent %v)", k, v)
		return true
	})
	if !p.Settled {
		t.Errorf("the page did not settle within Wait")
	}
}

// serveMap is a Load that answers from pages (path → HTML) under base, refusing the rest.
func serveMap(base string, pages map[string]string) Load {
	return func(_ context.Context, r Request) Response {
		if body, ok := pages[strings.TrimPrefix(r.URL, base)]; ok {
			return Response{Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(body)}
		}
		return Response{Failed: "not archived"}
	}
}

// startBrowser starts a browser for a test, Wait as given.
func startBrowser(t *testing.T, wait time.Duration) (*Browser, context.Context) {
	t.Helper()
	chromium := testkit.ChromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	b, err := Start(ctx, Options{Chromium: chromium, Tabs: 1, Wait: wait, Scroll: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b, ctx
}

// TestRenderHungAndCrashed: a page whose script never returns fails after its retry, within
// its bounds, and the browser renders the next page; a browser killed outright is restarted
// and the page rendered.
func TestRenderHungAndCrashed(t *testing.T) {
	t.Parallel()
	const wait = 2 * time.Second
	b, ctx := startBrowser(t, wait)
	const base = "http://127.0.0.1:9/"
	load := serveMap("http://127.0.0.1:9", map[string]string{
		"/hung": `<!doctype html><p>hung</p><script>for (;;) {}</script>`,
		"/ok":   `<!doctype html><a href="/next">next</a>`,
	})
	ok := func(when string) {
		t.Helper()
		p, err := b.Render(ctx, base+"ok", load)
		if err != nil || !slices.Contains(p.Links, base+"next") {
			t.Fatalf("%s: the page rendered %+v, %v", when, p, err)
		}
	}
	ok("first")

	start := time.Now()
	if _, err := b.Render(ctx, base+"hung", load); err == nil {
		t.Error("a page whose script never returns rendered without an error")
	}
	if took, most := time.Since(start), 2*(wait+grace)+15*time.Second; took > most {
		t.Errorf("the hung page took %v, more than %v", took, most)
	}
	ok("after the hung page")

	pid := b.pid()
	if pid == 0 {
		t.Fatal("no chromium process")
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill chromium's process group: %v", err)
	}
	before := b.Started()
	ok("after chromium was killed")
	if got := b.Started(); got != before+1 {
		t.Errorf("browsers started %d, want %d: one restart", got, before+1)
	}
	if b.pid() == pid {
		t.Error("the killed chromium is still the browser")
	}
}

// TestRenderMemoryBound: the browser's memory is measured, and a browser above its bound is
// restarted after the page it rendered.
func TestRenderMemoryBound(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := Start(ctx, Options{Chromium: chromium, Tabs: 1, Wait: 5 * time.Second, Memory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	load := serveMap("http://127.0.0.1:9", map[string]string{"/": `<!doctype html><p>a page</p>`})
	for i := range 2 {
		if _, err := b.Render(ctx, "http://127.0.0.1:9/", load); err != nil {
			t.Fatalf("render %d: %v", i, err)
		}
	}
	if got := b.Started(); got != 3 {
		t.Errorf("browsers started %d, want 3: a restart after each page above 1 MiB", got)
	}
	if peak := b.PeakRSS(); peak < 1<<20 || peak > 8<<30 {
		t.Errorf("peak memory %d bytes: not a browser's", peak)
	}
}
