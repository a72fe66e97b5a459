package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// TestEmbeddedInScopeWaitsForPage crawls two seed origins into the store: A's robots.txt says
// Archive-Embargo: q, B's nothing. A's page embeds an image and a stylesheet on B, the
// stylesheet a font on B. All three are in the scope, so crawled as pages, but they are sealed
// as requisites of what embeds them (the image, which the page links too, as well) and
// withheld until A's page is public: a pass a day later publishes nothing of them (no record,
// no tombstone, no URL), one after the quarter publishes them (docs/rules.md#d27).
func TestEmbeddedInScopeWaitsForPage(t *testing.T) {
	t.Parallel()
	b := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/s/EMBSLUG-sheet.css" {
			w.Header().Set("Content-Type", "text/css")
			io.WriteString(w, `@font-face{font-family:F;src:url(/f/EMBSLUG-font.woff2)}`)
			return
		}
		pages(map[string]string{
			"/robots.txt":             "User-agent: *\nAllow: /\n",
			"/":                       "<p>B's own page</p>",
			"/i/EMBSLUG-minister.png": "PNG",
			"/f/EMBSLUG-font.woff2":   "wOF2",
		}).ServeHTTP(w, r)
	}))
	a := newOrigin(t, pages(map[string]string{
		"/robots.txt": "User-agent: *\nArchive-Embargo: q\n",
		"/":           fmt.Sprintf(`<p>embargoed</p><a href="%[1]s/i/EMBSLUG-minister.png">linked too</a><img src="%[1]s/i/EMBSLUG-minister.png"><link rel=stylesheet href="%[1]s/s/EMBSLUG-sheet.css">`, b.URL),
	}))
	dir := t.TempDir()
	st, err := store.Open(dir, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	rec := &sealRecorder{Archive: StoreArchive(st)}
	sum, _, err := crawlInto(context.Background(), t, Config{DataDir: dir, Seeds: seedURLs(t, a.URL+"/", b.URL+"/"), Delay: 0}, rec)
	if cerr := st.Close(); err != nil || cerr != nil {
		t.Fatalf("crawl: %v; closing the store: %v", err, cerr)
	}
	caps, entries := map[string]store.Capture{}, map[string]store.Entry{}
	for i, c := range rec.caps {
		caps[c.URL], entries[c.URL] = c, rec.entries[i]
	}
	page, sheet := entries[a.URL+"/"], entries[b.URL+"/s/EMBSLUG-sheet.css"]
	if page.ID == "" || sheet.ID == "" {
		t.Fatalf("page %+v, stylesheet %+v: want both sealed", page, sheet)
	}
	tests := []struct {
		name, url, via, viaID string
	}{
		{"image", b.URL + "/i/EMBSLUG-minister.png", a.URL + "/", page.ID},
		{"stylesheet", b.URL + "/s/EMBSLUG-sheet.css", a.URL + "/", page.ID},
		{"font of the stylesheet", b.URL + "/f/EMBSLUG-font.woff2", b.URL + "/s/EMBSLUG-sheet.css", sheet.ID},
	}
	for _, tc := range tests {
		c, e := caps[tc.url], entries[tc.url]
		if c.RequisiteOf != tc.via || c.RequisiteOfID != tc.viaID {
			t.Errorf("%s: requisite of %q (%q), want %q (%q)", tc.name, c.RequisiteOf, c.RequisiteOfID, tc.via, tc.viaID)
		}
		if e.EmbargoSource != store.SourceRequisite || e.ReleaseAt.Before(page.ReleaseAt) {
			t.Errorf("%s: released at %v (%s), want withheld until the page's %v", tc.name, e.ReleaseAt, e.EmbargoSource, page.ReleaseAt)
		}
	}
	if sum.Requisites != 0 || sum.Pages != 5 {
		t.Errorf("summary: %d pages, %d requisites; want the 5 crawled as pages", sum.Pages, sum.Requisites)
	}

	r := release.New(dir, release.Options{Logger: slog.New(slog.DiscardHandler)})
	for _, tc := range []struct {
		name   string
		after  time.Duration
		public bool
	}{
		{"a day later", 24 * time.Hour, false},
		{"after the quarter", 91 * 24 * time.Hour, true},
	} {
		if _, err := r.Pass(context.Background(), page.Time.Add(tc.after)); err != nil {
			t.Fatalf("pass %s: %v", tc.name, err)
		}
		named := publicNames(t, filepath.Join(dir, "public"), "EMBSLUG-minister.png", "EMBSLUG-sheet.css", "EMBSLUG-font.woff2")
		for _, tt := range tests {
			if where, ok := named[path.Base(tt.url)]; ok != tc.public {
				t.Errorf("pass %s: %s public %v (%s), want %v", tc.name, tt.name, ok, where, tc.public)
			}
		}
	}
}

// publicNames returns which of names appear in a file under dir (gzip members read plain), with
// the file's path.
func publicNames(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			if plain, err := io.ReadAll(zr); err == nil || len(plain) > 0 {
				data = append(data, plain...)
			}
		}
		for _, n := range names {
			if bytes.Contains(data, []byte(n)) {
				out[n] = p
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return out
}
