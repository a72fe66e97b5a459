package browser

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
)

// TestRenderSnapshot: with Snapshot both, Render keeps the rendered DOM (what the page's script
// wrote, after its doctype) and a PNG screenshot of the viewport; data: and blob: URLs the page
// uses stay in the browser (load is never asked for them); without Snapshot it keeps neither.
func TestRenderSnapshot(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	const base = "http://snapshot.test"
	page := `<!doctype html><title>t</title><body style="background:#0a0"><p id=p>served</p>
<img id=d src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7">
<script>
const url = URL.createObjectURL(new Blob(["blob text"], {type: "text/plain"}));
fetch(url).then(r => r.text()).then(t => { document.getElementById("p").textContent = "written by script: " + t; });
</script>`
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, snap := range []Snapshot{{DOM: true, View: true}, {}} {
		b, err := Start(ctx, Options{Chromium: chromium, Tabs: 1, Wait: 5 * time.Second, Snapshot: snap})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var asked []string
		p, err := b.Render(ctx, base+"/", func(_ context.Context, r Request) Response {
			mu.Lock()
			asked = append(asked, r.URL)
			mu.Unlock()
			if r.URL == base+"/" {
				return Response{Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(page)}
			}
			return Response{Failed: "not archived"}
		})
		b.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(asked) != 1 {
			t.Errorf("load was asked for %q; data: and blob: URLs stay in the browser", asked)
		}
		if !snap.DOM {
			if p.DOM != nil || p.View != nil {
				t.Errorf("without snapshot: DOM %d bytes, screenshot %d bytes", len(p.DOM), len(p.View))
			}
			continue
		}
		if dom := string(p.DOM); !strings.HasPrefix(dom, "<!DOCTYPE html>\n<html>") || !strings.Contains(dom, "written by script: blob text") {
			t.Errorf("rendered DOM %q lacks its doctype or what the script wrote", dom)
		}
		img, err := png.Decode(bytes.NewReader(p.View))
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		if r, g, bl, _ := img.At(5, 5).RGBA(); img.Bounds().Dx() < 100 || r>>8 != 0 || g>>8 != 0xaa || bl>>8 != 0 {
			t.Errorf("screenshot %v, pixel (5,5) %d,%d,%d: not the page's green", img.Bounds(), r>>8, g>>8, bl>>8)
		}
	}
}

func TestParseSnapshot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Snapshot
		name string // what String gives back
	}{
		{"", Snapshot{}, "off"}, {"off", Snapshot{}, "off"}, {"dom", Snapshot{DOM: true}, "dom"},
		{"screenshot", Snapshot{View: true}, "screenshot"}, {"both", Snapshot{DOM: true, View: true}, "both"},
	} {
		got, err := ParseSnapshot(tc.in)
		if err != nil || got != tc.want || got.String() != tc.name {
			t.Errorf("ParseSnapshot(%q) = %+v (%s), %v; want %+v (%s)", tc.in, got, got, err, tc.want, tc.name)
		}
	}
	for _, bad := range []string{"DOM", "view", "true", "dom,screenshot"} {
		if _, err := ParseSnapshot(bad); !errors.Is(err, ErrSnapshot) {
			t.Errorf("ParseSnapshot(%q): %v, want ErrSnapshot", bad, err)
		}
	}
}
