package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/store"
	bolt "go.etcd.io/bbolt"
)

var releaseT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// sealReleaseArchive seals n captures into dir: even ones unembargoed, odd ones under a week's embargo.
func sealReleaseArchive(t *testing.T, dir string, n int) []store.Entry {
	t.Helper()
	s, err := store.Open(dir, store.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return releaseT0 }})
	if err != nil {
		t.Fatal(err)
	}
	var caps []store.Capture
	for i := range n {
		body := fmt.Sprintf("<p>page %d</p>", i)
		p := embargo.None
		if i%2 == 1 {
			p = embargo.Week
		}
		caps = append(caps, store.Capture{URL: fmt.Sprintf("https://example.com/%d", i), Time: releaseT0, IP: "127.0.0.1",
			Request:  []byte(fmt.Sprintf("GET /%d HTTP/1.1\r\nHost: example.com\r\n\r\n", i)),
			Response: []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)),
			Period:   p})
	}
	es, err := s.Seal(context.Background(), caps)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return es
}

func TestReleaseBadUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad now", []string{"--now", "yesterday"}, 2, "not an RFC 3339 time"},
		{"extra argument", []string{"now"}, 2, "unexpected argument"},
		{"unknown flag", []string{"--fast"}, 2, "flag provided but not defined"},
		{"missing data directory", []string{"--data", "/nonexistent/archivectl-test"}, 1, "does not exist"},
		{"missing config", []string{"--config", "/nonexistent/archivectl.yaml"}, 2, "does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb strings.Builder
			if code := runRelease(context.Background(), tc.args, nil, &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, errb.String())
			}
			if strings.Count(strings.TrimSpace(errb.String()), "\n") > 0 && tc.code == 1 {
				t.Errorf("stderr is not one line: %q", errb.String())
			}
		})
	}
}

// publicFiles reads every file under dir/public.
func publicFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(filepath.Join(dir, "public"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		out[p], err = os.ReadFile(p)
		return err
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("public/ unreadable or empty (%d files): %v", len(out), err)
	}
	return out
}

// TestReleaseBinary drives the built command: a pass prints its summary, a second pass at
// the same --now changes nothing, a later one releases the rest, a held index fails in one line.
func TestReleaseBinary(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data := t.TempDir()
	sealReleaseArchive(t, data, 6)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		cmd := exec.Command(exe, append([]string{"release", "--data", data}, args...)...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}

	day1 := releaseT0.Add(time.Hour).Format(time.RFC3339)
	code, out, errs := run("--now", day1)
	if code != 0 || !strings.Contains(out, "released:     3") || !strings.Contains(out, "tombstoned:   3") ||
		!strings.Contains(out, "next release: 2026-03-08T12:00:00Z") {
		t.Fatalf("first pass: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	before := publicFiles(t, data)
	code, out, _ = run("--now", day1, "--json")
	var s struct {
		Released, Tombstoned int
		NextRelease          *time.Time `json:"next_release"`
	}
	if err := json.Unmarshal([]byte(out), &s); code != 0 || err != nil || s.Released != 0 || s.Tombstoned != 0 || s.NextRelease == nil {
		t.Errorf("second pass at the same now: exit %d, %q (%v)", code, out, err)
	}
	if after := publicFiles(t, data); !maps.EqualFunc(before, after, bytes.Equal) {
		t.Errorf("a second pass at the same --now changed public/")
	}

	db, err := bolt.Open(filepath.Join(data, "index.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs = run("--now", releaseT0.Add(8*24*time.Hour).Format(time.RFC3339))
	db.Close()
	if code != 1 || !strings.Contains(errs, "index.db is busy") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("pass over a held index: exit %d, stderr %q; want 1 and one line saying index.db is busy", code, errs)
	}

	code, out, errs = run("--now", releaseT0.Add(8*24*time.Hour).Format(time.RFC3339))
	if code != 0 || !strings.Contains(out, "released:     3") || !strings.Contains(out, "next release: none") {
		t.Errorf("pass after a week: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	// Passes only move forward: a --now before the last pass's is refused, and changes nothing.
	before = publicFiles(t, data)
	code, out, errs = run("--now", day1)
	if code != 1 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 ||
		!strings.Contains(errs, "is before the last pass's, "+releaseT0.Add(8*24*time.Hour).Format(time.RFC3339)) {
		t.Errorf("pass back in time: exit %d, stdout %q, stderr %q; want 1 and one line naming the last pass", code, out, errs)
	}
	if after := publicFiles(t, data); !maps.EqualFunc(before, after, bytes.Equal) {
		t.Errorf("a refused pass changed public/")
	}

	// archivectl verify checks the public side too: clean now, and it names a damaged shard.
	verify := exec.Command(exe, "verify", "--data", data)
	if b, err := verify.CombinedOutput(); err != nil {
		t.Errorf("verify after the passes: %v\n%s", err, b)
	}
	shards, _ := filepath.Glob(filepath.Join(data, "public", "shards", "*.warc.gz"))
	b, _ := os.ReadFile(shards[0])
	b[len(b)-10] ^= 0xff
	os.WriteFile(shards[0], b, 0o644)
	verify = exec.Command(exe, "verify", "--data", data)
	if b, err := verify.CombinedOutput(); err == nil || !strings.Contains(string(b), "public: shards/") {
		t.Errorf("verify over a damaged shard: %v\n%s", err, b)
	}
}

// TestReleaseNowForms: release --now takes the forms export's --from and --to take (one parser,
// export.ParseTime): RFC 3339 in any zone, or a date (its midnight, UTC); anything else is exit 2
// naming both forms, before the pass touches the archive.
func TestReleaseNowForms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		now  string
		code int
		want string // on stdout (exit 0) or stderr (exit 2)
	}{
		{"2026-12-01", 0, "release pass at 2026-12-01T00:00:00Z\n"},
		{"2026-12-01T12:30:00Z", 0, "release pass at 2026-12-01T12:30:00Z\n"},
		{"2026-12-01T13:30:00+01:00", 0, "release pass at 2026-12-01T12:30:00Z\n"},
		{"20261201", 2, `--now "20261201": not an RFC 3339 time (2026-03-01T12:00:00Z) nor a date (2026-03-01)`},
		{"yesterday", 2, `--now "yesterday": not an RFC 3339 time`},
		{"1969-12-31", 2, "before 1970"},
	} {
		t.Run(tc.now, func(t *testing.T) {
			t.Parallel()
			data := t.TempDir()
			sealReleaseArchive(t, data, 2)
			var out, errb strings.Builder
			code := runRelease(context.Background(), []string{"--data", data, "--now", tc.now}, nil, &out, &errb)
			got := out.String()
			if tc.code != 0 {
				got = errb.String()
			}
			if code != tc.code || !strings.Contains(got, tc.want) {
				t.Errorf("--now %s: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.now, code, out.String(), errb.String(), tc.code, tc.want)
			}
			if tc.code != 0 {
				if _, err := os.Stat(filepath.Join(data, "public", "state.json")); err == nil {
					t.Errorf("--now %s: a refused pass wrote state.json", tc.now)
				}
			}
		})
	}
}
