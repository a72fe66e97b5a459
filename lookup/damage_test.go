package lookup

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/public/pubindex"
)

// segmentPath is the path of the fixture index's only segment.
func segmentPath(t *testing.T, f *fixture) string {
	t.Helper()
	m, _, err := pubindex.ReadManifest(os.DirFS(f.dir))
	if err != nil || len(m.Segments) != 1 {
		t.Fatalf("manifest: %v, %+v", err, m)
	}
	return filepath.Join(f.dir, pubindex.Dir, m.Segments[0].Name)
}

// A torn or corrupt index, or a missing one beside CDXJ files, is refused at open with one
// line naming the file and the command that rebuilds it.
func TestDamagedIndexIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		damage func(t *testing.T, f *fixture)
		file   string // what the error must name
	}{
		{"torn segment", func(t *testing.T, f *fixture) {
			p := segmentPath(t, f)
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()/2)
		}, "public/index/SEG-"},
		{"corrupt head", func(t *testing.T, f *fixture) { // the checksums of the table, just before the footer
			p := segmentPath(t, f)
			b, _ := os.ReadFile(p)
			b[len(b)-81] ^= 1
			os.WriteFile(p, b, 0o644)
		}, "public/index/SEG-"},
		{"missing manifest", func(t *testing.T, f *fixture) {
			os.Remove(filepath.Join(f.dir, pubindex.Dir, pubindex.ManifestFile))
		}, "public/index/manifest.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := standard(t)
			tc.damage(t, f)
			_, err := Open(f.dir, Options{Logger: discard})
			var d *pubindex.DamageError
			if !errors.As(err, &d) {
				t.Fatalf("Open = %v, want a *pubindex.DamageError", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.file) || !strings.Contains(msg, "archivectl reindex-public") || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming %s and the rebuild command", msg, tc.file)
			}
		})
	}
}

// A block damaged after the index was opened answers 500 with the one-line error, never a
// wrong answer; a damaged new generation is not taken, and the old one keeps answering.
func TestDamageAfterOpen(t *testing.T) {
	t.Parallel()
	f := standard(t)
	s := f.server(testNow)
	p := segmentPath(t, f)
	fd, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 64)
	fd.ReadAt(b, 0)
	for i := range b {
		b[i] ^= 0xff
	}
	fd.WriteAt(b, 0) // the first block: its checksum no longer matches
	fd.Close()
	rec := get(t, s, "/api/v1/captures?url=https://example.com/&matchType=prefix")
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "archivectl reindex-public") {
		t.Errorf("damaged block: status %d, body %s", rec.Code, rec.Body)
	}

	g := standard(t)
	s = g.server(testNow)
	m, _, _ := pubindex.ReadManifest(os.DirFS(g.dir))
	m.Segments[0].Size++ // a manifest that does not describe its segment
	m.Generation++
	if err := pubindex.WriteManifest(g.dir, m); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Refresh(); err == nil {
		t.Fatal("Refresh took a damaged generation")
	}
	if rec := get(t, s, "/api/v1/captures?url=https://example.com/a"); rec.Code != 200 {
		t.Errorf("after a refused reload: status %d, want the old index to answer", rec.Code)
	}
}
