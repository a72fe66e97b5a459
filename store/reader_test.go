package store

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenSealed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"done.warc.gz":         "final",
		"writing.warc.gz.open": "still written",
		"both.warc.gz":         "final wins",
		"both.warc.gz.open":    "stale",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		want    string // content; "" for an error
		missing bool   // the error is fs.ErrNotExist
	}{
		{"done.warc.gz", "final", false},
		{"writing.warc.gz", "still written", false},
		{"both.warc.gz", "final wins", false},
		{"gone.warc.gz", "", true},
		{"writing.warc.gz.open", "", false}, // locations carry final names only
		{"", "", false},
		{"../done.warc.gz", "", false},
		{"sub/done.warc.gz", "", false},
	} {
		f, err := OpenSealed(dir, tc.name)
		if tc.want == "" {
			if err == nil {
				f.Close()
				t.Errorf("OpenSealed(%q) opened a file", tc.name)
			} else if errors.Is(err, fs.ErrNotExist) != tc.missing {
				t.Errorf("OpenSealed(%q) = %v; missing file: %v", tc.name, err, tc.missing)
			}
			continue
		}
		if err != nil {
			t.Errorf("OpenSealed(%q): %v", tc.name, err)
			continue
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(b) != tc.want {
			t.Errorf("OpenSealed(%q) read %q (%v), want %q", tc.name, b, err, tc.want)
		}
	}
}
