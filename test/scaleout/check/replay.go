package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
func checkReplay(storeURL, dir string, nodes int, now, end time.Time, indexer, out string) {
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
	for i, u := range all {
		if len(released[u.String()]) == 0 {
			continue // its home page is still embargoed
		}
		pages++
		for _, r := range requisites(all, i) {
			if !r.due(now, end) {
				continue
			}
			reqs++
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
	found := warcioIndex(indexer, out, paths)

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
	cmd := exec.Command("node", append([]string{indexer, "--root", root}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "check replay: %s: %v\n%s", indexer, err, stderr.String())
		os.Exit(1)
	}
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
