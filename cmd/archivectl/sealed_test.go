package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/internal/layout"
)

// TestSealedSettings: a sealed store that is the public one, a checkpoint interval of 0 or an
// endpoint that is no URL is bad usage naming the key; --restore without a sealed store, into a
// directory holding a crawl, or from a store without a checkpoint fails in one line, and so does
// a fresh directory crawling into a store that holds checkpoints, or a directory holding a
// restore cut short, without --restore.
func TestSealedSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seeds, []byte("http://127.0.0.1:1/\n"), 0o644)
	shared, sealed := filepath.Join(dir, "shared"), filepath.Join(dir, "sealed")
	os.MkdirAll(shared, 0o755)
	os.MkdirAll(sealed, 0o755)
	busy := filepath.Join(dir, "busy")
	os.MkdirAll(busy, 0o755)
	os.WriteFile(layout.Frontier(busy), nil, 0o600)
	cut := filepath.Join(dir, "cut") // a restore killed between frontier.db and index.db
	os.MkdirAll(layout.Checkpoints(cut), 0o755)
	os.WriteFile(layout.Frontier(cut), nil, 0o600)
	os.WriteFile(filepath.Join(layout.Checkpoints(cut), "restoring"), nil, 0o600)
	used := filepath.Join(dir, "used")
	os.MkdirAll(filepath.Join(used, "checkpoints"), 0o755)
	os.WriteFile(filepath.Join(used, "checkpoints", "01796686906032747524.json"), []byte("{}"), 0o644)
	conf := func(yaml string) string {
		p := filepath.Join(t.TempDir(), "archivectl.yaml")
		os.WriteFile(p, []byte(yaml), 0o644)
		return p
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"the public store", []string{"--public", "s3://archive/public", "--sealed", "s3://archive/sealed"}, 2, "invalid --sealed"},
		{"no interval", []string{"--config", conf("sealed_store:\n  checkpoint: 0s\n")}, 2, "sealed_store.checkpoint"},
		{"bad endpoint", []string{"--config", conf("sealed_store:\n  endpoint: localhost:9000\n")}, 2, "sealed_store.endpoint"},
		{"restore without a store", []string{"--restore"}, 1, "give --sealed"},
		{"restore over a crawl", []string{"--restore", "--sealed", "file://" + sealed, "--data", busy}, 1, "restore needs an empty one"},
		{"restore from nothing", []string{"--restore", "--sealed", "file://" + sealed}, 1, "holds no checkpoint"},
		{"a fresh crawl into a node's store", []string{"--sealed", "file://" + used}, 1, "give --restore"},
		{"a crawl over a restore cut short", []string{"--sealed", "file://" + used, "--data", cut}, 1, "run crawl --restore again"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"crawl", "--data", filepath.Join(t.TempDir(), "d")}, tc.args...)
			_, stderr, code := runIn(t, append(args, seeds)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want %d and one line saying %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}
