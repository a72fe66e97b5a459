package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/public"
)

// checkReplay checks that every page released at now replays complete: each requisite of a
// released page that is due is released as well, and a real replay engine's indexer, warcio.js's
// (the library wabac.js and js-wacz index WARC files with), run over the released WARC files as
// they are in the bucket, finds every released capture where the public CDXJ says it is.
//
// Then it replays them: the same files, packed into a WACZ by js-wacz, are loaded into wabac.js
// (the engine of ReplayWeb.page), which must serve every released home page and each of its due
// requisites from the archive, status 200, an image's bytes those the site sent.
func checkReplay(storeURL, dir string, nodes int, now, end time.Time, scripts, out string) {
	ctx := context.Background()
	s := openS3(ctx, storeURL)
	side := publicSide(ctx, s, nodes)
	released := map[string][]entry{}
	files := map[string]bool{} // NODE/PATH of the WARC files released captures are in
	for _, e := range side.lines {
		if e.state == public.StateReleased {
			released[e.url] = append(released[e.url], e)
			files[e.node+"/"+public.PathOf(e.filename)] = true
		}
	}
	all := seeds(dir)
	pages, reqs := 0, 0
	var replays []replayWant // each released home page and its due requisites
	for i, u := range all {
		if len(released[u.String()]) == 0 {
			continue // its home page is still embargoed
		}
		pages++
		replays = append(replays, replayWant{url: u.String(), mime: "text/html"})
		for _, r := range requisites(all, i) {
			if !r.due(now, end) {
				continue
			}
			reqs++
			replays = append(replays, r.replayWant())
			if len(released[r.url.String()]) == 0 {
				problem("%s is released at %s but not %s, which it embeds and which is due: its replay is incomplete", u, now.Format(time.RFC3339), r.url)
			}
		}
	}

	// The released WARC files, fetched from the bucket by the paths the manifests give them.
	var paths []string
	for nodePath := range files {
		node, path, _ := strings.Cut(nodePath, "/")
		m := side.manifests[node]
		f, ok := m.File(path)
		if !ok {
			problem("node %s's CDXJ names %s, which its manifest does not list", node, path)
			continue
		}
		local := filepath.Join(out, node, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(local, read(ctx, s, publish.NodePrefix(node)+f.Object), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		paths = append(paths, local)
	}
	if len(paths) == 0 {
		problem("no released WARC file in the bucket")
		return
	}
	sort.Strings(paths)
	found := warcioIndex(filepath.Join(scripts, "index.mjs"), out, paths)

	captures := 0
	for url, es := range released {
		for _, e := range es {
			captures++
			at := e.node + "/" + public.PathOf(e.filename) + "@" + strconv.FormatInt(e.offset, 10)
			w, ok := found[at]
			switch {
			case !ok:
				problem("%s: the public CDXJ puts it at %s, where warcio.js indexes no record", url, at)
			case w.URL != url || w.Status != strconv.FormatInt(e.status, 10):
				problem("%s (status %d): warcio.js indexes %s (status %s) at %s", url, e.status, w.URL, w.Status, at)
			}
		}
	}
	fmt.Printf("at %s: %d released home pages with their %d due requisites (images, stylesheets, their images) all released; warcio.js indexed %d records of %d released WARC files, each of the %d released captures where the public CDXJ puts it\n",
		now.Format(time.RFC3339), pages, reqs, len(found), len(paths), captures)
	if len(replays) > 0 {
		replay(scripts, out, paths, replays)
	}
}

// A replayWant is a URL wabac.js must replay from the archive, and what it must serve.
type replayWant struct {
	url, mime string
	sha256    string // of the body, when the check knows it
}

// replayWant is what replaying r must give: the site's body of an image is its marker.
func (r requisite) replayWant() replayWant {
	w := replayWant{url: r.url.String(), mime: "image/png"}
	if strings.HasSuffix(r.url.Path, ".css") {
		w.mime = "text/css"
	} else {
		sum := sha256.Sum256([]byte(r.marker))
		w.sha256 = hex.EncodeToString(sum[:])
	}
	return w
}

// replay packs files into a WACZ with js-wacz (test/replay/wacz.mjs; the nodes' files, which
// may share names, under names of their own) and replays wants from it in wabac.js
// (test/replay/replay.mjs).
func replay(scripts, out string, files []string, wants []replayWant) {
	dir := filepath.Join(out, "wacz")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var inputs []string
	for _, f := range files {
		rel, err := filepath.Rel(out, f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		in := filepath.Join(dir, strings.ReplaceAll(rel, string(filepath.Separator), "-"))
		if err := os.Link(f, in); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		inputs = append(inputs, in)
	}
	wacz := filepath.Join(out, "public.wacz")
	node(filepath.Join(scripts, "wacz.mjs"), nil, append([]string{wacz}, inputs...)...)
	var list strings.Builder
	for _, w := range wants {
		list.WriteString(w.url + "\n")
	}
	b := node(filepath.Join(scripts, "replay.mjs"), strings.NewReader(list.String()), wacz, "-")
	type replayed struct {
		URL         string `json:"url"`
		Status      int    `json:"status"`
		ContentType string `json:"content_type"`
		SHA256      string `json:"sha256"`
		Archived    bool   `json:"archived"`
	}
	got := map[string]replayed{}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r replayed
		if err := json.Unmarshal(line, &r); err != nil {
			problem("replay.mjs line %q: %v", line, err)
			continue
		}
		got[r.URL] = r
	}
	for _, w := range wants {
		r, ok := got[w.url]
		switch {
		case !ok:
			problem("wabac.js gave no answer for %s", w.url)
		case !r.Archived || r.Status != 200:
			problem("wabac.js does not replay %s from the archive: status %d, archived %v", w.url, r.Status, r.Archived)
		case !strings.HasPrefix(r.ContentType, w.mime):
			problem("wabac.js replays %s as %s, want %s", w.url, r.ContentType, w.mime)
		case w.sha256 != "" && r.SHA256 != w.sha256:
			problem("wabac.js replays %s with other bytes than the site sent (sha256 %s, want %s)", w.url, r.SHA256, w.sha256)
		}
	}
	fmt.Printf("wabac.js replayed all %d of them (pages and requisites) from a WACZ of the %d released WARC files, each from the archive, status 200\n", len(wants), len(files))
}

// node runs a script of test/replay with args and stdin, and returns its standard output.
func node(script string, stdin io.Reader, args ...string) []byte {
	cmd := exec.Command("node", append([]string{script}, args...)...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "check replay: %s: %v\n%s", script, err, stderr.String())
		os.Exit(1)
	}
	return b
}

// A warcioRecord is what warcio.js's indexer says of one record (test/replay/index.mjs).
type warcioRecord struct {
	URL      string `json:"url"`
	Status   string `json:"status"`
	Offset   string `json:"offset"`
	Filename string `json:"filename"`
}

// warcioIndex runs test/replay/index.mjs over files (paths under root) and returns its records
// by FILENAME@OFFSET, FILENAME relative to root.
func warcioIndex(indexer, root string, files []string) map[string]warcioRecord {
	b := node(indexer, nil, append([]string{"--root", root}, files...)...)
	found := map[string]warcioRecord{}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		fs := bytes.SplitN(line, []byte(" "), 3)
		var w warcioRecord
		if len(fs) != 3 || json.Unmarshal(fs[2], &w) != nil {
			problem("warcio.js line %q: not SURT TIMESTAMP {json}", line)
			continue
		}
		at := filepath.ToSlash(w.Filename) + "@" + w.Offset
		if _, dup := found[at]; dup {
			problem("warcio.js indexes %s twice", at)
		}
		found[at] = w
	}
	return found
}
