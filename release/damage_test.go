package release

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/store"
	"github.com/klauspost/compress/gzip"
	"github.com/prometheus/client_golang/prometheus"
)

// TestDamagedSealedRecordHeldBack damages one due capture's sealed response in each way a sealed
// file can be damaged: the pass holds that capture back (and, for a file cut short, those after
// it in the file), releases every other, logs and counts it, and verify reports it.
func TestDamagedSealedRecordHeldBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		damage   func(t *testing.T, path string, loc store.Location)
		truncate bool // the captures after it in the file are damaged too
	}{
		{"deflate data", func(t *testing.T, path string, loc store.Location) {
			flipByte(t, path, loc.Offset+loc.Length/2)
		}, false},
		{"CRC-32", func(t *testing.T, path string, loc store.Location) {
			flipByte(t, path, loc.Offset+loc.Length-8)
		}, false},
		{"ISIZE", func(t *testing.T, path string, loc store.Location) {
			flipByte(t, path, loc.Offset+loc.Length-2)
		}, false},
		{"block digest", func(t *testing.T, path string, loc store.Location) {
			// A sound gzip member of the same length whose record's block no longer matches its
			// WARC-Block-Digest: one byte of the body changed, the member recompressed (stored).
			b := readRange(t, path, loc)
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			rec, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			i := bytes.Index(rec, []byte("SECRET-BODY"))
			rec[i] = 's'
			member := func(extra []byte) []byte {
				var buf bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
				zw.Header.Extra = extra
				zw.Write(rec)
				zw.Close()
				return buf.Bytes()
			}
			// A gzip extra field (2 bytes of length, then the bytes) pads it to the old length.
			pad := loc.Length - int64(len(member(nil))) - 2
			if pad < 0 {
				t.Skipf("the recompressed member is longer than %d bytes", loc.Length)
			}
			writeAt(t, path, loc.Offset, member(make([]byte, pad)))
		}, false},
		{"file cut short", func(t *testing.T, path string, loc store.Location) {
			if err := os.Truncate(path, loc.Offset+loc.Length/2); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := buildArchive(t, t.TempDir(), 40)
			victim := a.entries[20] // embargo.None: due at once
			if victim.Period != embargo.None {
				t.Fatalf("capture 20 has period %v", victim.Period)
			}
			path := filepath.Join(layout.Sealed(a.dir), victim.Response.File)
			tc.damage(t, path, victim.Response)
			now := t0.Add(time.Hour) // the captures without embargo are due, the others not
			wantHeld := map[string]bool{victim.ID: true}
			cut := map[string]bool{} // captures of the file cut short, after the cut
			if tc.truncate {
				for _, e := range a.entries {
					if e.Response.File == victim.Response.File && e.Response.Offset > victim.Response.Offset {
						cut[e.ID] = true
						if embargo.Releasable(e.ReleaseAt, now) {
							wantHeld[e.ID] = true
						}
					}
				}
			}
			var logBuf bytes.Buffer
			r := New(a.dir, Options{ShardSize: 32 << 10, LockTimeout: 200 * time.Millisecond, Software: "archivectl-test",
				Logger: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			reg := prometheus.NewRegistry()
			if err := r.Register(reg); err != nil {
				t.Fatal(err)
			}
			s, err := r.Pass(context.Background(), now)
			if err != nil {
				t.Fatalf("pass: %v", err)
			}
			if s.Damaged != len(wantHeld) {
				t.Errorf("Summary.Damaged = %d, want %d", s.Damaged, len(wantHeld))
			}
			if got := gauge(t, reg, "archivectl_release_damaged_captures"); got != float64(len(wantHeld)) {
				t.Errorf("archivectl_release_damaged_captures = %v, want %d", got, len(wantHeld))
			}
			released, _ := publicLines(t, a.dir)
			ix, err := store.OpenIndex(layout.Index(a.dir), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range a.entries {
				if !embargo.Releasable(e.ReleaseAt, now) {
					continue
				}
				got, _, err := ix.Get(e.ID)
				if err != nil {
					t.Fatal(err)
				}
				if wantHeld[e.ID] {
					if released[e.ID] > 0 || got.State != store.Sealed {
						t.Errorf("damaged capture %s: released %d times, state %v; want held back, sealed", e.ID, released[e.ID], got.State)
					}
				} else if released[e.ID] != 1 || got.State != store.Released {
					t.Errorf("capture %s: released %d times, state %v; want released once", e.ID, released[e.ID], got.State)
				}
			}
			logged := logBuf.String()
			for _, want := range []string{"id=" + victim.ID, "file=" + victim.Response.File, "offset=" + itoa(victim.Response.Offset)} {
				if !strings.Contains(logged, want) {
					t.Errorf("warn log lacks %q:\n%s", want, logged)
				}
			}
			problems, err := Verify(context.Background(), a.dir)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			reported := 0
		problems:
			for _, p := range problems {
				if strings.Contains(p, "holds it back") {
					reported++
					continue
				}
				for id := range cut { // a tombstone whose sealed record is gone is a problem of its own
					if strings.Contains(p, id) {
						continue problems
					}
				}
				t.Errorf("verify: %s", p)
			}
			if reported != len(wantHeld) || !strings.Contains(strings.Join(problems, "\n"), victim.ID) {
				t.Errorf("verify reports %d held-back captures, want %d naming %s:\n%s", reported, len(wantHeld), victim.ID, strings.Join(problems, "\n"))
			}
			// The next pass holds it back again, and changes nothing.
			before := snapshot(t, a.dir)
			if s, err := r.Pass(context.Background(), now); err != nil || s.Released != 0 || s.Damaged != len(wantHeld) {
				t.Errorf("second pass: %+v, %v", s, err)
			}
			if after := snapshot(t, a.dir); len(after) != len(before) {
				t.Errorf("second pass changed public/: %d files, then %d", len(before), len(after))
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// writeAt writes b into the file at off.
func writeAt(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// flipByte inverts one byte of the file at off.
func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [1]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b[:], off); err != nil {
		t.Fatal(err)
	}
}

// readRange reads loc's bytes of path.
func readRange(t *testing.T, path string, loc store.Location) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b[loc.Offset : loc.Offset+loc.Length]
}

// gauge is the value of the gauge name in reg.
func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no gauge %s", name)
	return 0
}
