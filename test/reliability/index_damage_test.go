package reliability

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/release"
)

// TestDamagedIndex flips single bytes at many offsets of a real index.db, and truncates it, and
// runs verify, release and verify --reindex through the binary: none panics; a command that fails
// names index.db and the remedy (verify --reindex); and after verify --reindex, verify exits 0
// with every capture present in the state it had (release states restored from public/).
func TestDamagedIndex(t *testing.T) {
	t.Parallel()
	seed := seedFor(t)
	base := memDir(t)
	data := filepath.Join(base, "data")
	smallArchive(t, data, seed)
	now := t0.Add(30 * 24 * time.Hour) // some captures due, some not
	r := release.New(data, release.Options{ShardSize: 16 << 10, Logger: testkit.QuietLogger()})
	if _, err := r.Pass(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	clean := run(t, "verify", "--data", data)
	if clean.code != 0 {
		t.Fatalf("verify of the undamaged archive: exit %d:\n%s%s", clean.code, clean.stdout, clean.stderr)
	}
	st, err := os.Stat(filepath.Join(data, layout.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	size := st.Size()
	type damage struct {
		name string
		do   func(b []byte) []byte
	}
	var cases []damage
	for _, off := range []int64{0, 12, 16, 24, 32, 4096 + 16, 4096 + 40, 2*4096 + 8, 3*4096 + 2} {
		cases = append(cases, damage{fmt.Sprintf("flip at %d", off), func(b []byte) []byte { b[off] ^= 0x5a; return b }})
	}
	for i := range int64(16) {
		off := i*size/16 + 11 + i*13%4096
		cases = append(cases, damage{fmt.Sprintf("flip at %d", off), func(b []byte) []byte { b[off] ^= 0xff; return b }})
	}
	for _, n := range []int64{100, 4096, 3 * 4096, size / 2, size - 4096, size - 1} {
		cases = append(cases, damage{fmt.Sprintf("truncated to %d", n), func(b []byte) []byte { return b[:n] }})
	}
	noPanic := func(t *testing.T, what string, res result) {
		t.Helper()
		if strings.Contains(res.stderr, "goroutine ") || strings.Contains(res.stderr, "panic:") || res.code < 0 {
			t.Errorf("%s panics (exit %d):\n%s", what, res.code, res.stderr)
		}
	}
	remedy := func(t *testing.T, what string, res result) {
		t.Helper()
		noPanic(t, what, res)
		if res.code != 0 && strings.TrimSpace(res.stdout) == "" || res.code == 1 && res.stderr != "" && !strings.Contains(res.stderr, "problems in the sealed") {
			if !strings.Contains(res.stderr, layout.IndexFile) || !strings.Contains(res.stderr, "verify --reindex") {
				t.Errorf("%s: exit %d, and stderr does not name %s and the remedy (verify --reindex):\n%s", what, res.code, layout.IndexFile, res.stderr)
			}
		}
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(base, fmt.Sprintf("case-%d", i))
			testkit.CopyTree(t, data, dir)
			path := filepath.Join(dir, layout.IndexFile)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.do(b), 0o600); err != nil {
				t.Fatal(err)
			}
			remedy(t, "verify", run(t, "verify", "--data", dir))
			remedy(t, "release", run(t, "release", "--data", dir, "--now", now.Format(time.RFC3339)))
			res := run(t, "verify", "--reindex", "--data", dir)
			noPanic(t, "verify --reindex", res)
			if res.code != 0 {
				t.Errorf("verify --reindex: exit %d:\n%s%s", res.code, res.stdout, res.stderr)
			}
			res = run(t, "verify", "--data", dir)
			noPanic(t, "verify after verify --reindex", res)
			if res.code != 0 || res.stdout != clean.stdout {
				t.Errorf("verify after verify --reindex: exit %d:\n%s%s\nwant exit 0 and\n%s", res.code, res.stdout, res.stderr, clean.stdout)
			}
		})
	}
}
