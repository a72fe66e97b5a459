package release

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// TestPassRepairsPublicState damages, after a first pass, a public file that every pass reads:
// the next pass repairs it (logging what it did) and publishes, and verify finds nothing wrong.
func TestPassRepairsPublicState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		warn   string // in the pass's log
	}{
		{"torn audit-log tail", func(t *testing.T, dir string) {
			f, err := os.OpenFile(layout.ReleaseLog(dir), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"pass":"2026-03-01T13:00:00Z","event":"rele`) // a write cut short
			f.Close()
		}, "torn last line"},
		{"state.json not JSON", func(t *testing.T, dir string) {
			os.WriteFile(layout.State(dir), []byte("{\"generation\": 3, \"last_pa"), 0o644)
		}, "rebuilt a damaged state.json"},
		{"state.json of the wrong types", func(t *testing.T, dir string) {
			os.WriteFile(layout.State(dir), []byte(`{"generation":"x"}`), 0o644)
		}, "rebuilt a damaged state.json"},
		{"a public index segment fails its checksums", func(t *testing.T, dir string) {
			pub := layout.Public(dir)
			m, _, err := pubindex.ReadManifest(os.DirFS(pub))
			if err != nil || len(m.Segments) == 0 {
				t.Fatalf("manifest: %+v, %v", m, err)
			}
			path := filepath.Join(pub, pubindex.Dir, m.Segments[0].Name)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			flipByte(t, path, st.Size()*3/4) // in its table (keys, entries), checked by checksum
		}, "rebuilding the public index"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := buildArchive(t, t.TempDir(), 24)
			mustPass(t, newTestReleaser(a.dir), t0.Add(time.Hour))
			before, err := public.ReadStatus(os.DirFS(layout.Public(a.dir)))
			if err != nil {
				t.Fatal(err)
			}
			tc.damage(t, a.dir)
			var logBuf bytes.Buffer
			r := New(a.dir, Options{ShardSize: 32 << 10, LockTimeout: 200 * time.Millisecond, Software: "archivectl-test",
				Logger: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			s, err := r.Pass(context.Background(), t0.Add(8*24*time.Hour))
			if err != nil {
				t.Fatalf("pass after the damage: %v", err)
			}
			if s.Released == 0 {
				t.Errorf("the pass released nothing: %+v", s)
			}
			if !strings.Contains(logBuf.String(), tc.warn) {
				t.Errorf("pass log lacks %q:\n%s", tc.warn, logBuf.String())
			}
			after, err := public.ReadStatus(os.DirFS(layout.Public(a.dir)))
			if err != nil {
				t.Fatal(err)
			}
			if after.Generation <= before.Generation || after.Released != before.Released+int64(s.Released) || after.Tombstoned != before.Tombstoned+int64(s.Tombstoned) {
				t.Errorf("state.json %+v after %+v and a pass of %+v", after, before, s)
			}
			mustVerify(t, a.dir)
		})
	}
}

// TestVerifyNamesDamagedState checks that verify names a damaged state.json and the remedy.
func TestVerifyNamesDamagedState(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 8)
	mustPass(t, newTestReleaser(a.dir), t0.Add(time.Hour))
	os.WriteFile(layout.State(a.dir), []byte("garbage"), 0o644)
	_, err := Verify(context.Background(), a.dir)
	if !errors.Is(err, ErrStateDamaged) || !strings.Contains(err.Error(), layout.State(a.dir)) || !strings.Contains(err.Error(), "archivectl release") {
		t.Errorf("Verify: %v; want ErrStateDamaged naming %s and the remedy", err, layout.State(a.dir))
	}
}
