package store

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// warcioEngines is the directory of the npm packages test/replay installs: ARCHIVECTL_REPLAY_NODE_DIR,
// or what install.sh prints. Without node the test is skipped, saying so, except under CI=true.
func warcioEngines(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("ARCHIVECTL_REPLAY_NODE_DIR"); dir != "" {
		return dir
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node is not installed, and CI must read the sealed files with warcio.js: %v", err)
		}
		t.Skipf("SKIPPED: node is not installed, so warcio.js cannot read the sealed files (install Node.js 20 or later, or set ARCHIVECTL_REPLAY_NODE_DIR): %v", err)
	}
	cmd := exec.Command("bash", filepath.Join("..", "test", "replay", "install.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("test/replay/install.sh: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// warcioRecord is one line of test/replay/records.mjs.
type warcioRecord struct {
	File    string `json:"file"`
	Offset  int64  `json:"offset"`
	Length  int64  `json:"length"`
	Type    string `json:"type"`
	ID      string `json:"id"`
	Block   bool   `json:"block"`
	Payload *bool  `json:"payload"`
}

// warcioCaptures are captures of every shape Seal writes: bodies empty, small, binary, compressed
// and large, chunked, odd statuses, URLs, addresses and truncation, and the same payload sealed
// again (a revisit).
func warcioCaptures() []Capture {
	rng := rand.New(rand.NewPCG(3, 4))
	bin := make([]byte, 1<<20)
	for i := range bin {
		bin[i] = byte(rng.Uint32())
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("<p>compressed page</p>\n"), 5000))
	zw.Close()
	resp := func(head, body string) string { return head + "\r\n\r\n" + body }
	cases := []struct{ url, ip, truncated, response string }{
		{"https://example.com/", "192.0.2.1", "", resp("HTTP/1.1 200 OK\r\nContent-Type: text/html", "<p>hello</p>")},
		{"https://example.com/empty", "", "", resp("HTTP/1.1 204 No Content\r\nServer: x", "")},
		{"https://example.com/nm", "2001:db8::1", "", resp("HTTP/1.1 304 Not Modified", "")},
		{"https://example.com/bin", "192.0.2.1", "", resp("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream", string(bin))},
		{"https://example.com/gz", "192.0.2.1", "", resp("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip", gz.String())},
		{"https://example.com/chunked", "192.0.2.1", "", resp("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked", "5\r\nhello\r\n0\r\n\r\n")},
		{"https://example.com/big", "192.0.2.1", "length", resp("HTTP/1.1 200 OK\r\nContent-Type: text/plain", strings.Repeat("line of text\r\n", 400000))},
		{"https://例え.jp/パス?q=ü&a=%41", "", "", resp("HTTP/1.1 404 Not Found\r\nContent-Type: text/html", "nope")},
		{"http://[2001:db8::1]:8080/x", "", "time", resp("HTTP/1.0 500 Oops\r\nX-Folded: a\r\n b", "WARC/1.1\r\nWARC-Type: response\r\n\r\n")},
		{"https://example.com/", "192.0.2.1", "", resp("HTTP/1.1 200 OK\r\nContent-Type: text/html", "<p>hello</p>")}, // a revisit
	}
	var caps []Capture
	for i, c := range cases {
		cp := capture(c.url, t0.Add(time.Duration(i)*time.Minute), "")
		cp.IP, cp.Truncated, cp.Response = c.ip, c.truncated, []byte(c.response)
		caps = append(caps, cp)
	}
	post := capture("https://example.com/form", t0.Add(time.Hour), "ok")
	post.Request = []byte("POST /form HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\na=1&b=2")
	return append(caps, post)
}

// TestWarcioReadsSealedFiles has warcio.js, an independent reader, read every record of sealed
// files (both digest algorithms, records spread over several files): it must find exactly the records
// the store's own reader finds, and every block and payload digest must verify.
func TestWarcioReadsSealedFiles(t *testing.T) {
	t.Parallel()
	engines := warcioEngines(t)
	for _, alg := range []string{"sha256", "sha1"} {
		t.Run(alg, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := openTestStore(t, dir, Options{Digest: alg, MaxFileSize: 64 << 10})
			caps := warcioCaptures()
			seal(t, s, caps[:len(caps)/2]...)
			seal(t, s, caps[len(caps)/2:]...)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "sealed", "*.warc.gz"))
			want := map[string]string{} // "file offset length" → id, by the store's reader
			for _, f := range files {
				if err := ScanFile(f, func(loc Location, rec gowarc.WarcRecord) error {
					want[fmt.Sprint(filepath.Base(f), loc.Offset, loc.Length)] = rec.RecordId()
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("node", append([]string{filepath.Join("..", "test", "replay", "records.mjs")}, files...)...)
			cmd.Env = append(os.Environ(), "ARCHIVECTL_REPLAY_NODE_DIR="+engines)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("records.mjs: %v\n%s", err, stderr.String())
			}
			types := map[string]int{}
			for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
				var r warcioRecord
				if err := json.Unmarshal(line, &r); err != nil {
					t.Fatalf("records.mjs line %q: %v", line, err)
				}
				types[r.Type]++
				k := fmt.Sprint(filepath.Base(r.File), r.Offset, r.Length)
				if id, ok := want[k]; !ok || id != strings.Trim(r.ID, "<>") && id != r.ID {
					t.Errorf("warcio.js read a %s record %s at %s that the store's reader does not", r.Type, r.ID, k)
				}
				delete(want, k)
				if !r.Block || r.Payload != nil && !*r.Payload {
					t.Errorf("%s record %s at %s: block digest verifies %v, payload digest %v", r.Type, r.ID, k, r.Block, *r.Payload)
				}
				if withPayload := r.Type != "warcinfo" && r.Type != "metadata" && r.Type != "revisit"; withPayload != (r.Payload != nil) {
					t.Errorf("%s record %s at %s: a payload digest %v, want one only on a record with a payload", r.Type, r.ID, k, r.Payload != nil)
				}
			}
			for k, id := range want {
				t.Errorf("warcio.js did not read record %s at %s", id, k)
			}
			if len(files) < 2 || types["revisit"] != 1 || types["response"] != len(caps)-1 || types["warcinfo"] != len(files) {
				t.Errorf("the corpus is not what it should be: %d files, records %v", len(files), types)
			}
		})
	}
}
