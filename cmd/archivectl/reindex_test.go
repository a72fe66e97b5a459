package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public/pubindex"
)

// A missing or torn public index: serve refuses with one line naming the file and the command
// that rebuilds it; reindex-public rebuilds it, and serve starts again.
func TestReindexPublic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		damage func(t *testing.T, pub string)
		file   string
	}{
		{"missing", func(t *testing.T, pub string) { os.RemoveAll(filepath.Join(pub, pubindex.Dir)) }, "public/index/manifest.json"},
		{"torn", func(t *testing.T, pub string) {
			m, _, _ := pubindex.ReadManifest(os.DirFS(pub))
			os.Truncate(filepath.Join(pub, pubindex.Dir, m.Segments[0].Name), 100)
		}, "public/index/SEG-"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := t.TempDir()
			sealReleaseArchive(t, data, 6)
			var out, errb strings.Builder
			if code := runRelease(context.Background(), []string{"--data", data, "--now", "2026-03-02T00:00:00Z"}, nil, &out, &errb); code != 0 {
				t.Fatalf("release: exit %d: %s", code, errb.String())
			}
			tc.damage(t, layout.Public(data))
			out.Reset()
			errb.Reset()
			if code := runServe(context.Background(), []string{"--data", data, "--listen", "127.0.0.1:0"}, nil, &out, &errb); code != 1 {
				t.Fatalf("serve over a %s index: exit %d, want 1; stderr:\n%s", tc.name, code, errb.String())
			}
			msg := errb.String()
			if lines := strings.Count(msg, "\n"); lines != 1 || !strings.Contains(msg, tc.file) || !strings.Contains(msg, "archivectl reindex-public --data "+data) {
				t.Errorf("serve said %q: want one line naming %s and the rebuild command", msg, tc.file)
			}
			out.Reset()
			errb.Reset()
			if code := runReindexPublic(context.Background(), []string{"--data", data}, nil, &out, &errb); code != 0 {
				t.Fatalf("reindex-public: exit %d: %s", code, errb.String())
			}
			if !strings.Contains(out.String(), "3 released and 3 embargoed captures") {
				t.Errorf("reindex-public said %q", out.String())
			}
			if _, err := pubindex.Verify(os.DirFS(layout.Public(data))); err != nil {
				t.Fatal(err)
			}
			if ps, _ := pubindex.Verify(os.DirFS(layout.Public(data))); len(ps) > 0 {
				t.Errorf("after reindex-public: %q", ps)
			}
		})
	}
}

func TestReindexPublicBadUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"stray argument", []string{"extra"}, 2, "unexpected argument"},
		{"no public side", nil, 1, "holds no public side"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb strings.Builder
			args := append([]string{"--data", t.TempDir()}, tc.args...)
			if code := runReindexPublic(context.Background(), args, nil, &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errb.String(), tc.code, tc.want)
			}
		})
	}
}
