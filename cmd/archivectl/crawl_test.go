package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCrawlBadUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(good, []byte("http://127.0.0.1:1/\n"), 0o644)
	os.WriteFile(bad, []byte("# seeds\nhttp://ok.example/\nnot a url\n\nftp://x.example/\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"no seeds file", []string{}, []string{"exactly one SEEDS file"}},
		{"two seeds files", []string{good, good}, []string{"exactly one SEEDS file"}},
		{"missing seeds file", []string{filepath.Join(dir, "none.txt")}, []string{"cannot read the seeds file"}},
		{"every bad line listed", []string{bad}, []string{"2 invalid seed line(s)", "line 3: \"not a url\"", "line 5: \"ftp://x.example/\""}},
		{"invalid agent", []string{"--agent", "Bot/1.0", good}, []string{"not a product token"}},
		{"negative delay", []string{"--delay", "-1s", good}, []string{"cannot be negative"}},
		{"unknown flag", []string{"--fast", good}, []string{"flag provided but not defined"}},
		{"missing config", []string{"--config", filepath.Join(dir, "none.yaml"), good}, []string{"does not exist"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb strings.Builder
			args := append([]string{"--data", filepath.Join(t.TempDir(), "d")}, tc.args...)
			if code := runCrawl(context.Background(), args, nil, &out, &errb); code != 2 {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, errb.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
		})
	}
}

func TestCrawlFlagsAfterSeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seeds, []byte("# nothing to crawl\n"), 0o644)
	var out, errb strings.Builder
	code := runCrawl(context.Background(), []string{seeds, "--data", filepath.Join(dir, "d"), "--delay", "0s"}, nil, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "lists no URL") {
		t.Fatalf("exit %d, stderr %q; want 2 and a line saying there are no seeds", code, errb.String())
	}
}
