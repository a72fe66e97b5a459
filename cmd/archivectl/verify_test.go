package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// sealedFixture seals a few captures into a fresh data directory.
func sealedFixture(t *testing.T) (string, []store.Entry) {
	t.Helper()
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s, err := store.Open(dir, store.Options{Now: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	var caps []store.Capture
	for i, p := range []embargo.Period{embargo.None, embargo.Week, embargo.Quarter} {
		u := "https://example.com/" + string(rune('a'+i))
		caps = append(caps, store.Capture{URL: u, Time: now, Period: p,
			Request:  []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
			Response: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nbody " + u)})
	}
	es, err := s.Seal(context.Background(), caps)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, es
}

func TestVerifyCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		damage func(dir string, es []store.Entry) error
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"clean", nil, nil, 0, "ok: 3 captures (3 sealed", ""},
		{"index lost, no reindex", func(dir string, _ []store.Entry) error { return os.Remove(filepath.Join(dir, "index.db")) },
			nil, 1, "", "verify --reindex"},
		{"index lost, reindexed", func(dir string, _ []store.Entry) error { return os.Remove(filepath.Join(dir, "index.db")) },
			[]string{"--reindex"}, 0, "ok: 3 captures", ""},
		{"index lost after a release pass, reindexed", func(dir string, _ []store.Entry) error {
			pass := time.Date(2026, 3, 1, 12, 0, 1, 0, time.UTC) // a released, b and c tombstoned
			if _, err := release.New(dir, release.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Pass(context.Background(), pass); err != nil {
				return err
			}
			return os.Remove(filepath.Join(dir, "index.db"))
		}, []string{"--reindex"}, 0, "ok: 3 captures (0 sealed, 2 tombstoned, 1 released)", ""},
		{"tampered record", func(dir string, es []store.Entry) error {
			p := filepath.Join(dir, "sealed", es[2].Metadata.File)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[es[2].Metadata.Offset+20] ^= 0x55
			return os.WriteFile(p, b, 0o600)
		}, nil, 1, es2Marker, "problems in"},
		{"not a data directory", func(dir string, _ []store.Entry) error { return os.RemoveAll(filepath.Join(dir, "sealed")) },
			nil, 1, "", "holds no sealed repository"},
		{"bad flag", nil, []string{"--nope"}, 2, "", "flag provided but not defined"},
		{"stray argument", nil, []string{"x"}, 2, "", "unexpected argument"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, es := sealedFixture(t)
			if tc.damage != nil {
				if err := tc.damage(dir, es); err != nil {
					t.Fatal(err)
				}
			}
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"verify", "--data", dir}, tc.args...), nil, &out, &errb)
			want := tc.stdout
			if want == es2Marker {
				want = es[2].ID
			}
			if code != tc.code || !strings.Contains(out.String(), want) || !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out.String(), errb.String())
			}
			if code == 1 && strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
				t.Errorf("failure is not one line on stderr:\n%s", errb.String())
			}
		})
	}
}

// es2Marker asks for the damaged capture's id on stdout.
const es2Marker = "<the damaged capture>"

// TestVerifyOldFormArchive: an archive written by an earlier version (store/testdata/oldform:
// index schema 1 with older SURT keys, JSON facts and tombstones, shards/ filenames) verifies
// clean once its public index is built (reindex-public), its index.db upgraded on the way with every
// key computed anew; verify --reindex keeps it so.
func TestVerifyOldFormArchive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "store", "testdata", "oldform", "archive"))); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"reindex-public", "--data", dir}, nil, &out, &errb); code != 0 {
		t.Fatalf("reindex-public: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, args := range [][]string{{"verify", "--data", dir}, {"verify", "--data", dir, "--reindex"}} {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, nil, &out, &errb)
		if code != 0 || !strings.Contains(out.String(), "sealed repository ok: 5 captures (0 sealed, 1 tombstoned, 4 released)") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out.String(), errb.String())
		}
	}
}
