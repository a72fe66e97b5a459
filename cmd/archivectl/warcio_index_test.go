package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/public"
)

// warcioLine is one line of test/replay/index.mjs: warcio.js's CDXJ of a record.
type warcioLine struct {
	key, timestamp string
	URL            string `json:"url"`
	Mime           string `json:"mime"`
	Status         string `json:"status"`
	Digest         string `json:"digest"`
	Length         string `json:"length"`
	Offset         string `json:"offset"`
	Filename       string `json:"filename"`
}

// testWarcioIndex runs warcio.js's indexer (the library wabac and js-wacz index WARCs with) over
// every public WARC file of data, shards and tombstones, and compares its lines with our CDXJ:
// one warcio line per released capture, at the capture's record, agreeing on key, timestamp,
// offset, length, filename, status, MIME and digest; no line for any metadata record (the
// capture facts in the shards, the tombstones), which are application/warc-fields.
//
// The keys are compared after the one rule in which warcio.js's getSurt departs from Python's
// surt, whose keys ours are: it keeps a path's trailing slash (…)/news/), where surt drops it.
func testWarcioIndex(t *testing.T, data string) {
	engines := replayEngines(t)
	pub := filepath.Join(data, "public")
	var warcs []string
	for _, dir := range []string{"shards", "tombstones"} {
		m, err := filepath.Glob(filepath.Join(pub, dir, "*"+public.WARCExt))
		if err != nil {
			t.Fatal(err)
		}
		warcs = append(warcs, m...)
	}
	sort.Strings(warcs)
	cmd := exec.Command("node", append([]string{filepath.Join("..", "..", "test", "replay", "index.mjs")}, warcs...)...)
	cmd.Env = append(os.Environ(), "ARCHIVECTL_REPLAY_NODE_DIR="+engines)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("index.mjs: %v\n%s", err, stderr.String())
	}
	got := map[string]warcioLine{} // filename@offset → warcio's line
	for _, raw := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		key, rest, _ := bytes.Cut(raw, []byte(" "))
		ts, js, _ := bytes.Cut(rest, []byte(" "))
		var w warcioLine
		if err := json.Unmarshal(js, &w); err != nil {
			t.Fatalf("index.mjs line %q: %v", raw, err)
		}
		w.key, w.timestamp = string(key), string(ts)
		at := w.Filename + "@" + w.Offset
		if _, dup := got[at]; dup {
			t.Errorf("warcio indexes %s twice", at)
		}
		got[at] = w
	}

	lines, err := publicLines(pub)
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]public.Line{} // filename@offset → our line of a released capture
	for _, l := range lines {
		if l.State == public.StateReleased {
			ours[l.Filename+"@"+strconv.FormatInt(l.Offset, 10)] = l
		}
	}
	if len(ours) < 30 {
		t.Fatalf("only %d released captures to compare", len(ours))
	}
	slashes := 0
	for at, l := range ours {
		w, ok := got[at]
		if !ok {
			t.Errorf("%s (%s): warcio indexes no record there", at, l.URL)
			continue
		}
		key := w.key
		if k, ok := strings.CutSuffix(key, "/"); ok && !strings.HasSuffix(k, ")") && !strings.Contains(key, "?") {
			key, slashes = k, slashes+1
		}
		mime := l.Mime
		if l.Revisit {
			mime = "warc/revisit"
		}
		digest := strings.TrimPrefix(l.Digest, "sha256:")
		want := fmt.Sprintf("%q", []string{l.SURT, l.Timestamp, l.URL, mime, strconv.Itoa(l.Status), digest,
			strconv.FormatInt(l.Length, 10), strconv.FormatInt(l.Offset, 10), l.Filename})
		have := fmt.Sprintf("%q", []string{key, w.timestamp, w.URL, w.Mime, w.Status, w.Digest, w.Length, w.Offset, w.Filename})
		if want != have {
			t.Errorf("%s: ours %s\n  warcio.js %s", at, want, have)
		}
	}
	for at, w := range got {
		if _, ok := ours[at]; !ok {
			t.Errorf("warcio indexes a record that is no released capture: %s %s %+v (a metadata record, or a tombstone?)", w.key, w.timestamp, w)
		}
	}
	t.Logf("warcio.js indexed %d records of %d public WARC files: each a released capture, as our CDXJ has it (%d keys differing only by warcio's trailing slash)",
		len(got), len(warcs), slashes)
}
