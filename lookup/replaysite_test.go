package lookup

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// replaySite is a public side made by a real crawl of two loopback origins and a real release
// pass right after it: a's home page (no embargo) embeds its stylesheet (which embeds a
// background image), its logo, and a photo from b, whose robots.txt embargoes everything for a
// month; it links to a's about page. After the pass the page, stylesheet, logo and background
// are released and the photo is a tombstone, under embargo until a month after its capture. The
// origins are closed once crawled.
type replaySite struct {
	public          string // the public directory
	home, about     string // a's pages
	photo           string // b's photo, under embargo
	logo, bg, sheet string // a's resources
	photoPNG        []byte // the photo's payload: never in a package
	pass            time.Time
	logoW, logoH    int
}

// pngOf is a w×h PNG of one colour.
func pngOf(t testing.TB, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// staticSite serves files: path → content type and body; anything else is 404.
func staticSite(files map[string][2]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", f[0])
		w.Write([]byte(f[1]))
	})
}

// newReplaySite crawls the two origins into a data directory and releases it.
func newReplaySite(t testing.TB) *replaySite { return crawlReplaySite(t, 1) }

// crawlReplaySite is newReplaySite with the site crawled n times before the pass: a crawl after
// the first finds the same payloads, so each of its captures is a revisit.
func crawlReplaySite(t testing.TB, crawls int) *replaySite {
	t.Helper()
	rs := &replaySite{logoW: 64, logoH: 40}
	rs.photoPNG = pngOf(t, 37, 23, color.RGBA{200, 30, 30, 255})
	b := httptest.NewServer(staticSite(map[string][2]string{
		"/robots.txt": {"text/plain", "User-agent: *\nArchive-Embargo: m\n"},
		"/photo.png":  {"image/png", string(rs.photoPNG)},
	}))
	t.Cleanup(b.Close)
	var a *httptest.Server
	a = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		staticSite(map[string][2]string{
			"/robots.txt": {"text/plain", "User-agent: *\nAllow: /\n"},
			"/": {"text/html; charset=utf-8", fmt.Sprintf(`<!doctype html><html lang="en"><head><title>Harbour test page</title>`+
				`<link rel="stylesheet" href="/style.css"></head><body><h1 id="headline">Replayed from the archive</h1>`+
				`<img id="logo" src="/img/logo.png" alt="logo" width="%d" height="%d"><img id="photo" src="%s/photo.png" alt="photo">`+
				`<p><a href="/about">About us</a></p></body></html>`, rs.logoW, rs.logoH, b.URL)},
			"/about":        {"text/html; charset=utf-8", `<!doctype html><title>About</title><p>About the harbour.</p>`},
			"/style.css":    {"text/css", `body{background:#fff url(/img/bg.png) repeat-x} h1{color:rgb(0,90,30)}`},
			"/img/logo.png": {"image/png", string(pngOf(t, rs.logoW, rs.logoH, color.RGBA{20, 60, 200, 255}))},
			"/img/bg.png":   {"image/png", string(pngOf(t, 4, 4, color.RGBA{240, 240, 220, 255}))},
		}).ServeHTTP(w, r)
	}))
	t.Cleanup(a.Close)
	rs.home, rs.about, rs.photo = a.URL+"/", a.URL+"/about", b.URL+"/photo.png"
	rs.logo, rs.bg, rs.sheet = a.URL+"/img/logo.png", a.URL+"/img/bg.png", a.URL+"/style.css"

	data := t.TempDir()
	seeds, err := crawler.ParseSeeds(strings.NewReader(rs.home + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range crawls {
		if i > 0 {
			time.Sleep(time.Second) // crawls apart: each resource's nearest capture is of its page's crawl
		}
		cfg := crawler.Defaults()
		cfg.DataDir, cfg.Seeds, cfg.Delay, cfg.Log = data, seeds, 0, discard
		cr, err := crawler.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(data, store.Options{Logger: discard})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := cr.Run(context.Background(), crawler.StoreArchive(st))
		if cerr := cr.Close(); err == nil {
			err = cerr
		}
		if cerr := st.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatalf("crawl: %v (%+v)", err, sum)
		}
	}
	a.Close() // gone: what replays comes from the archive, not from the live origins
	b.Close()
	rs.pass = time.Now().UTC() // a pass by the clock: not ahead of it, and every capture made before it
	if _, err := release.New(data, release.Options{Logger: discard}).Pass(context.Background(), rs.pass); err != nil {
		t.Fatal(err)
	}
	rs.public = filepath.Join(data, "public")
	return rs
}

// server is a lookup over the site's public side.
func (rs *replaySite) server(t *testing.T, opt Options) *Server {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger = discard
	}
	if opt.Now == nil {
		opt.Now = func() time.Time { return rs.pass.Add(time.Minute) }
	}
	s, err := Open(rs.public, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
