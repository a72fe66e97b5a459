package lookup

import (
	"context"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/release"
)

// TestOverOldAndNewForms: the lookup over store/testdata/oldform's archive (written by an earlier
// version: older SURT keys, "shards/…" filenames, tombstone lines saying "embargoed") after a pass
// of this version has added lines of the new forms. Old lines answer under the keys queries get
// now; a capture tombstoned by the old version and released by the new one is one released
// capture with its tombstone's header fields; warc.file is a path under public/ either way.
func TestOverOldAndNewForms(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "store", "testdata", "oldform", "archive")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chmod(p, map[bool]os.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
	}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	if s, err := release.New(dir, release.Options{Logger: discard}).Pass(context.Background(), now); err != nil || s.Released != 1 {
		t.Fatalf("pass: %+v %v, want /about released", s, err)
	}
	s, err := Open(filepath.Join(dir, "public"), Options{Logger: discard, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url, file string
		n         int
	}{
		{"http://127.0.0.1:8080/news/?a=1&b=2", "shards/PUBLIC-20260309120000-00002.warc.gz", 1},
		{"http://127.0.0.1:8080/about", "shards/PUBLIC-20260601000000-00003.warc.gz", 1},
		{"http://127.0.0.1:8080/style.css", "shards/PUBLIC-20260301140000-00001.warc.gz", 2},
	} {
		var got capturesJSON
		decode(t, get(t, s, "/api/v1/captures?url="+url.QueryEscape(tc.url)).Body, &got)
		if len(got.Captures) != tc.n {
			t.Errorf("%s: %d captures, want %d: %+v", tc.url, len(got.Captures), tc.n, got)
			continue
		}
		c := got.Captures[0]
		if c.State != "released" || c.WARC == nil || c.WARC.File != tc.file || len(c.Headers) == 0 {
			t.Errorf("%s: %+v (warc %+v), want released from %s with header fields", tc.url, c, c.WARC, tc.file)
		}
	}
	if rec := get(t, s, "/api/v1/record?format=payload&url="+url.QueryEscape("http://127.0.0.1:8080/about")); rec.Code != 200 || rec.Body.String() != "<p>about</p>" {
		t.Errorf("payload of /about: %d %q", rec.Code, rec.Body)
	}
}
