package store

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/store/index"
	"github.com/klauspost/compress/gzip"
)

// rewriteMember replaces the gzip member at loc with one holding edit(its plain bytes), keeping
// the rest of the file after it.
func rewriteMember(t *testing.T, dir string, loc Location, edit func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, layout.SealedDir, loc.File)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b[loc.Offset : loc.Offset+loc.Length]))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	var m bytes.Buffer
	zw := gzip.NewWriter(&m)
	zw.Write(edit(plain))
	zw.Close()
	out := append(append(bytes.Clone(b[:loc.Offset]), m.Bytes()...), b[loc.Offset+loc.Length:]...)
	if err := os.WriteFile(p, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// editEntry replaces a capture's index entry with what edit makes of it, with every key that
// points at it (edit returning false deletes it): the index stays consistent with itself, and
// its facts are no longer the sealed records'. Keys that disagree with entries are the index's
// own check (index.Check, tested in store/index).
func editEntry(t *testing.T, dir, id string, edit func(e *Entry) bool) {
	t.Helper()
	ix, err := OpenIndex(filepath.Join(dir, layout.IndexFile), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Update(func(tx *index.Tx) error {
		e, _, err := tx.Get(id)
		if err != nil {
			return err
		}
		if err := tx.Delete(e); err != nil || !edit(&e) {
			return err
		}
		return tx.Put([]Entry{e})
	}); err != nil {
		t.Fatal(err)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string, es []Entry)
		want   []string // substrings of the problems reported
	}{
		{"clean", func(*testing.T, string, []Entry) {}, nil},
		{"payload changed under its digest", func(t *testing.T, dir string, es []Entry) {
			last := es[len(es)-1]
			rewriteMember(t, dir, last.Response, func(b []byte) []byte { return bytes.Replace(b, []byte("body 2"), []byte("BODY 2"), 1) })
		}, []string{"digest"}},
		{"corrupt gzip bytes", func(t *testing.T, dir string, es []Entry) {
			p := filepath.Join(dir, layout.SealedDir, es[1].Response.File)
			b, _ := os.ReadFile(p)
			b[es[1].Response.Offset+es[1].Response.Length/2] ^= 0xff
			os.WriteFile(p, b, 0o600)
		}, []string{"bad record", "capture cannot be indexed or released"}},
		{"release time changed in the index", func(t *testing.T, dir string, es []Entry) {
			editEntry(t, dir, es[0].ID, func(e *Entry) bool {
				e.ReleaseAt = e.ReleaseAt.Add(time.Hour)
				return true
			})
		}, []string{"release_at"}},
		{"entry deleted from the index", func(t *testing.T, dir string, es []Entry) {
			editEntry(t, dir, es[0].ID, func(*Entry) bool { return false })
		}, []string{"not indexed"}},
		{"location pointing nowhere", func(t *testing.T, dir string, es []Entry) {
			editEntry(t, dir, es[0].ID, func(e *Entry) bool {
				e.Metadata.Offset++
				return true
			})
		}, []string{"metadata"}},
		{"sealed WARC file missing", func(t *testing.T, dir string, es []Entry) {
			os.Remove(filepath.Join(dir, layout.SealedDir, es[0].Response.File))
		}, []string{"WARC file is missing"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := openTestStore(t, dir, Options{})
			var caps []Capture
			for i := range 3 {
				caps = append(caps, capture("https://example.com/"+string(rune('a'+i)), t0, "body "+string(rune('0'+i))))
			}
			es := seal(t, s, caps...)
			s.Close()
			tc.damage(t, dir, es)
			ps, err := Verify(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, p := range ps {
				all = append(all, p.String())
			}
			text := strings.Join(all, "\n")
			t.Logf("problems:\n%s", text)
			if len(tc.want) == 0 && len(ps) != 0 {
				t.Errorf("problems in a clean store:\n%s", text)
			}
			if len(tc.want) > 0 && len(ps) == 0 {
				t.Fatal("no problem found")
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("no problem mentions %q:\n%s", w, text)
				}
			}
		})
	}
}
