package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runIn runs archivectl with args in-process and returns its outputs and exit status.
func runIn(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// TestPartitionFlag: a bad --partition (or crawl.partition) is exit 2 with one line naming it;
// a partition owning no seed is a crawl with nothing to do.
func TestPartitionFlag(t *testing.T) {
	t.Parallel()
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte("http://127.0.0.1:1/\n"), 0o644)
	for _, tc := range []struct{ value, want string }{
		{"3/3", "invalid --partition \"3/3\": K must be from 0 to 2"},
		{"5/3", "K must be from 0 to 2"},
		{"0/0", "N must be at least 1"},
		{"1/0", "N must be at least 1"},
		{"x", "give two whole numbers"},
		{"1/2/3", "give two whole numbers"},
		{"-1/2", "K must be"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			t.Parallel()
			_, stderr, code := runIn(t, "crawl", "--data", t.TempDir(), "--partition", tc.value, seeds)
			if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("--partition %s: exit %d, %q; want 2 and one line saying %q", tc.value, code, stderr, tc.want)
			}
		})
	}
	cfg := filepath.Join(t.TempDir(), "archivectl.yaml")
	os.WriteFile(cfg, []byte("crawl:\n  partition: 2/2\n"), 0o644)
	if _, stderr, code := runIn(t, "crawl", "--config", cfg, "--data", t.TempDir(), seeds); code != 2 || !strings.Contains(stderr, "crawl.partition") {
		t.Errorf("crawl.partition 2/2 in the config: exit %d, %q", code, stderr)
	}
}

// TestPublicSetting: a bad public: or node: is exit 2; a store that cannot be used is exit 1
// with one line, before anything is done.
func TestPublicSetting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--public", "ftp://x/y"}, 2, "invalid --public"},
		{[]string{"--public", "s3://Bad_Bucket/p"}, 2, "not a bucket name"},
		{[]string{"--public", "s3://k:s@bucket/p"}, 2, "AWS environment"},
		{[]string{"--node", "Not A Name"}, 2, "invalid --node"},
		{[]string{"--public", "file:///nonexistent/archivectl/dir"}, 1, "file:///nonexistent/archivectl/dir"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			args := append([]string{"release", "--data", t.TempDir()}, tc.args...)
			_, stderr, code := runIn(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("%v: exit %d, %q; want %d and one line saying %q", tc.args, code, stderr, tc.code, tc.want)
			}
		})
	}
}
