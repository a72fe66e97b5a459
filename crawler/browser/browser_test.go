package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
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
