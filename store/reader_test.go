package store

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/warcrecord"
	"github.com/nlnwa/gowarc/v3"
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

// TestOwnPayloadDigestForms: the payload digest of a metadata record is checked in every form the
// archive's one digest codec (internal/warcrecord) accepts, and a wrong one is a DigestError.
func TestOwnPayloadDigestForms(t *testing.T) {
	t.Parallel()
	block := []byte("format: archivectl-capture-facts/2\r\noutlink: http://a.example/\r\n")
	s1, s512 := sha1.Sum(block), sha512.Sum512(block)
	for _, tc := range []struct {
		name, digest string
		ok           bool
	}{
		{"sha256 as written", Digest("sha256", block), true},
		{"sha1 base32", "sha1:" + base32.StdEncoding.EncodeToString(s1[:]), true},
		{"sha1 base16", "sha1:" + hex.EncodeToString(s1[:]), true},
		{"sha512 base16", "SHA512:" + hex.EncodeToString(s512[:]), true},
		{"wrong value", Digest("sha256", []byte("other")), false},
		{"unknown algorithm", "md5:00", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw, err := warcrecord.Marshal("metadata", "<urn:uuid:00000000-0000-4000-8000-000000000001>", time.Unix(0, 0),
				"application/warc-fields", block, [2]string{"WARC-Target-URI", "http://a.example/"}, [2]string{"WARC-Payload-Digest", tc.digest})
			if err != nil {
				t.Fatal(err)
			}
			rec, _, _, err := gowarc.NewUnmarshaler(strictReading()...).Unmarshal(bufio.NewReader(bytes.NewReader(raw)))
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			if err := checkOwnPayloadDigest(rec); (err == nil) != tc.ok {
				t.Errorf("checkOwnPayloadDigest(%s) = %v, want ok %v", tc.digest, err, tc.ok)
			}
		})
	}
}
