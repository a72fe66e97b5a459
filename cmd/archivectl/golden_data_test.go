//go:build unix

package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/archivectl/archivectl/public"
)

// warcFile is one WARC file of the data directory, read back.
type warcFile struct {
	rel     string // path under the data directory
	members []warcMember
}

// goldenData is the data directory after the run.
type goldenData struct {
	files    string // the listing: mode and path of every entry
	sealed   []warcFile
	public   []warcFile                      // shards, then tombstones
	other    []string                        // every other file under public/, by path under the data directory
	content  map[string][]byte               // their bytes
	sealedBy map[string]string               // gzip member of a sealed record → its label
	at       map[string]map[int64]warcMember // WARC file, by path under public/ → offset → member
}

// readData reads the data directory, then teaches n the captures' instants, the record labels
// and the host name.
func (g *goldenRun) readData(t *testing.T, n *normaliser) *goldenData {
	t.Helper()
	data := filepath.Join(g.dir, "data")
	d := &goldenData{content: map[string][]byte{}, sealedBy: map[string]string{}, at: map[string]map[int64]warcMember{}}
	var entries []fs.DirEntry
	var rels []string
	err := filepath.WalkDir(data, func(path string, e fs.DirEntry, err error) error {
		if err != nil || path == data {
			return err
		}
		rel, _ := filepath.Rel(data, path)
		rels, entries = append(rels, filepath.ToSlash(rel)), append(entries, e)
		switch {
		case e.IsDir():
		case strings.HasSuffix(rel, ".warc.gz"):
			ms, err := readWARC(path)
			if err != nil {
				return err
			}
			f := warcFile{rel: filepath.ToSlash(rel), members: ms}
			if strings.HasPrefix(f.rel, "sealed/") {
				d.sealed = append(d.sealed, f)
				if m := sealedRE.FindStringSubmatch(f.rel); m != nil {
					n.host = m[2]
				}
			} else {
				d.public = append(d.public, f)
			}
		case strings.HasPrefix(filepath.ToSlash(rel), "public/"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			d.other = append(d.other, filepath.ToSlash(rel))
			d.content[filepath.ToSlash(rel)] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.sealed) == 0 {
		t.Fatal("the crawl sealed no WARC file")
	}
	sort.SliceStable(d.public, func(i, j int) bool { // shards before tombstones, each in name order
		return strings.HasPrefix(d.public[i].rel, "public/shards/") && !strings.HasPrefix(d.public[j].rel, "public/shards/")
	})

	// Capture instants: the response's WARC-Date, which the request and metadata records share.
	ambiguous := map[int64]bool{}
	for _, f := range d.sealed {
		for _, m := range f.members {
			if typ := m.rec.get("WARC-Type"); typ != "response" && typ != "revisit" {
				continue
			}
			at, err := time.Parse(time.RFC3339Nano, m.rec.get("WARC-Date"))
			if err != nil {
				t.Fatalf("%s: WARC-Date %q: %v", f.rel, m.rec.get("WARC-Date"), err)
			}
			if _, dup := n.captures[at.UnixNano()]; dup {
				ambiguous[at.UnixNano()] = true
			}
			n.captures[at.UnixNano()] = n.short(m.rec.get("WARC-Target-URI"))
		}
	}
	for ns := range ambiguous {
		delete(n.captures, ns) // two captures at the same instant: named {crawl …} instead
	}

	// Record labels, and where each public member is.
	labels := map[string]bool{}
	for _, f := range append(append([]warcFile{}, d.sealed...), d.public...) {
		name, _, _ := n.text(f.rel)
		for _, m := range f.members {
			id := uuidRE.FindString(m.rec.get("WARC-Record-ID"))
			if id == "" {
				t.Errorf("%s at %d: no record id", f.rel, m.offset)
				continue
			}
			if _, ok := n.ids[id]; !ok {
				typ := m.rec.get("WARC-Type")
				label := typ + " " + n.short(m.rec.get("WARC-Target-URI"))
				switch {
				case typ == "warcinfo":
					label = "warcinfo " + name
				case typ == "metadata" && strings.HasPrefix(f.rel, "public/tombstones/"):
					label = "tombstone " + n.short(m.rec.get("WARC-Target-URI"))
				}
				for i := 2; labels[label]; i++ {
					label = strings.TrimSuffix(label, fmt.Sprintf(" #%d", i-1)) + fmt.Sprintf(" #%d", i)
				}
				labels[label] = true
				n.ids[id] = label
			}
			if strings.HasPrefix(f.rel, "sealed/") {
				d.sealedBy[string(m.gz)] = n.ids[id]
			} else {
				rel := strings.TrimPrefix(f.rel, "public/")
				if d.at[rel] == nil {
					d.at[rel] = map[int64]warcMember{}
				}
				d.at[rel][m.offset] = m
			}
		}
	}

	var lines []string
	for i, rel := range rels {
		e := entries[i]
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		name, _, _ := n.text(rel)
		note := ""
		switch {
		case e.IsDir():
			name += "/"
		case rel == "index.db" || rel == "frontier.db":
			note = " (bbolt: not compared)"
		case info.Size() == 0:
			note = " (empty)"
		}
		lines = append(lines, fmt.Sprintf("%s %s%s\n", info.Mode(), name, note))
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][11:] < lines[j][11:] })
	d.files = strings.Join(lines, "")
	return d
}

// sealedText is sealed.txt: every record of the sealed WARC files.
func (d *goldenData) sealedText(n *normaliser) string {
	var b strings.Builder
	for _, f := range d.sealed {
		name, _, _ := n.text(f.rel)
		fmt.Fprintf(&b, "=== %s\n", name)
		ms := append([]warcMember{}, f.members...)
		groupByOrigin(n, ms, func(m warcMember) string { return m.rec.get("WARC-Target-URI") })
		for _, m := range ms {
			fmt.Fprintf(&b, "--- %s\n%s", n.ids[uuidRE.FindString(m.rec.get("WARC-Record-ID"))], n.render(m.rec))
		}
	}
	return b.String()
}

// publicText is public.txt: the shards (their copied records by name), the tombstones, every
// CDXJ file, the release log and the state.
func (d *goldenData) publicText(n *normaliser) string {
	var b strings.Builder
	for _, f := range d.public {
		name, _, _ := n.text(f.rel)
		fmt.Fprintf(&b, "=== %s\n", name)
		ms := append([]warcMember{}, f.members...)
		groupByOrigin(n, ms, func(m warcMember) string { return m.rec.get("WARC-Target-URI") })
		for _, m := range ms {
			label := n.ids[uuidRE.FindString(m.rec.get("WARC-Record-ID"))]
			if sealed, ok := d.sealedBy[string(m.gz)]; ok && sealed == label {
				fmt.Fprintf(&b, "--- %s: its sealed gzip member, byte for byte\n", label)
				continue
			}
			fmt.Fprintf(&b, "--- %s\n%s", label, n.render(m.rec))
		}
	}
	for _, rel := range d.other {
		name, _, _ := n.text(rel)
		fmt.Fprintf(&b, "=== %s\n", name)
		lines := strings.SplitAfter(string(d.content[rel]), "\n")
		switch {
		case strings.HasSuffix(rel, ".cdxj"):
			b.WriteString(d.cdxj(n, rel, lines))
		case strings.HasPrefix(rel, "public/index/"): // checked against the CDXJ files by verify
			b.WriteString(indexText(d.content[rel]))
		case strings.HasSuffix(rel, "release-log.jsonl"):
			b.WriteString(d.releaseLog(n, lines))
		case utf8.Valid(d.content[rel]):
			s, _, _ := n.text(d.locations(string(d.content[rel])))
			b.WriteString(visible(s))
		default:
			fmt.Fprintf(&b, "(binary file of %d bytes)\n", len(d.content[rel]))
		}
	}
	return b.String()
}

// indexText shows a file of the public index: a segment by its line count (its bytes vary
// with the compression of random record ids), the manifest with the segments' sizes and
// checksums replaced.
func indexText(b []byte) string {
	if bytes.HasPrefix(b, []byte("{")) {
		return indexSizeRE.ReplaceAllString(string(b), `"$1": {$1}`)
	}
	return "(a public index segment: CDXJ lines in compressed blocks, checked against the CDXJ files by verify)\n"
}

var indexSizeRE = regexp.MustCompile(`"(size|check)": [0-9]+`)

// cdxj checks that a CDXJ file is sorted by key and time as written, then normalises its lines
// and sorts them by their normalised key (names sort differently from ports).
func (d *goldenData) cdxj(n *normaliser, rel string, lines []string) string {
	sortKey := func(l string) string {
		f := strings.SplitN(l, " ", 3)
		return strings.Join(f[:min(2, len(f))], " ")
	}
	var out []string
	for i, l := range lines {
		if l == "" {
			continue
		}
		if i > 0 && sortKey(lines[i-1]) > sortKey(l) {
			n.errs = append(n.errs, fmt.Sprintf("%s: line %d is out of order", rel, i+1))
		}
		s, _, _ := n.text(d.locations(l))
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, _, _ := strings.Cut(out[i], " ")
		b, _, _ := strings.Cut(out[j], " ")
		return a < b
	})
	return visible(strings.Join(out, ""))
}

var (
	passRE = regexp.MustCompile(`"pass":"([^"]*)"`)
	urlRE  = regexp.MustCompile(`"url":"([^"]*)"`)
)

// releaseLog normalises the audit log, its lines of one pass grouped by origin.
func (d *goldenData) releaseLog(n *normaliser, lines []string) string {
	var out []string
	for start := 0; start < len(lines); {
		pass := passRE.FindString(lines[start])
		end := start + 1
		for end < len(lines) && passRE.FindString(lines[end]) == pass {
			end++
		}
		group := append([]string{}, lines[start:end]...)
		groupByOrigin(n, group, func(l string) string {
			if m := urlRE.FindStringSubmatch(l); m != nil {
				return m[1]
			}
			return ""
		})
		for _, l := range group {
			s, _, _ := n.text(d.locations(l))
			out = append(out, s)
		}
		start = end
	}
	return visible(strings.Join(out, ""))
}

var (
	locationRE    = regexp.MustCompile(`"(file|filename)":"([^"]+)","offset":([0-9]+),"length":([0-9]+)`)
	locationRevRE = regexp.MustCompile(`"length":([0-9]+),"offset":([0-9]+),"(file|filename)":"([^"]+)"`)
	locationStdRE = regexp.MustCompile(`"length":"([0-9]+)","offset":"([0-9]+)","(filename)":"([^"]+)"`) // pywb's standard form (export)
	cursorRE      = regexp.MustCompile(`("next_cursor":"|cursor=)[A-Za-z0-9_-]+`)
)

// locations replaces the offset and length of every public gzip member that s names with the
// label of the record found there and whether the length is that member's.
func (d *goldenData) locations(s string) string {
	resolve := func(file, off, length string) (string, string) {
		o, _ := strconv.ParseInt(off, 10, 64)
		m, ok := d.at[public.PathOf(file)][o] // a CDXJ filename is the file's name alone
		if !ok {
			return "@nothing", "{length ?}"
		}
		at := "@" + uuidRE.FindString(m.rec.get("WARC-Record-ID")) // n.text turns the UUID into its label
		if strconv.FormatInt(m.length, 10) != length {
			return at, "{length WRONG: " + length + "}"
		}
		return at, "{length ok}"
	}
	s = locationRE.ReplaceAllStringFunc(s, func(w string) string {
		m := locationRE.FindStringSubmatch(w)
		at, l := resolve(m[2], m[3], m[4])
		return fmt.Sprintf(`"%s":"%s","offset":%s,"length":%s`, m[1], m[2], at, l)
	})
	s = locationRevRE.ReplaceAllStringFunc(s, func(w string) string {
		m := locationRevRE.FindStringSubmatch(w)
		at, l := resolve(m[4], m[2], m[1])
		return fmt.Sprintf(`"length":%s,"offset":%s,"%s":"%s"`, l, at, m[3], m[4])
	})
	s = locationStdRE.ReplaceAllStringFunc(s, func(w string) string {
		m := locationStdRE.FindStringSubmatch(w)
		at, l := resolve(m[4], m[2], m[1])
		return fmt.Sprintf(`"length":"%s","offset":"%s","%s":"%s"`, l, at, m[3], m[4])
	})
	return cursorRE.ReplaceAllString(s, "${1}{cursor}")
}

// apiText is api.txt: every exchange with the lookup service.
func (d *goldenData) apiText(n *normaliser, xs []exchange) string {
	var b strings.Builder
	section := ""
	for _, x := range xs {
		if x.section != section {
			section = x.section
			fmt.Fprintf(&b, "==== %s\n", section)
		}
		show, _, _ := n.text(d.locations(x.show))
		fmt.Fprintf(&b, "### %s\n%d %s\n", show, x.status, http.StatusText(x.status))
		ctype := x.header.Get("Content-Type")
		var body string
		variable := false
		switch {
		case ctype == "application/json":
			body, _, variable = n.text(d.locations(string(x.body)))
			body = visible(body)
		case ctype == "application/warc":
			body = n.render(parseRecord(x.body))
			_, _, variable = n.text(string(x.body))
		case ctype == "application/gzip":
			var raw []byte
			body, raw = d.gzipAnswer(n, x.body)
			_, variable, _ = n.text(string(raw)) // compressed, any change of content may change the length
		case utf8.Valid(x.body):
			body, _, variable = n.text(string(x.body))
			body = visible(body)
		default:
			body = fmt.Sprintf("(binary body of %d bytes)\n", len(x.body))
		}
		if strings.HasPrefix(x.show, "GET /api/v1/record") || x.status != http.StatusOK && x.status != http.StatusNotFound {
			for _, k := range sortedKeys(x.header) {
				for _, v := range x.header[k] {
					if k == "Date" { // the lookup's own clock, always
						if _, err := http.ParseTime(v); err == nil {
							v = "{clock http}"
						}
					}
					if k == "Content-Length" {
						switch {
						case v != strconv.Itoa(len(x.body)):
							v = "{length WRONG: " + v + "}"
						case variable:
							v = "{length ok}"
						}
					}
					v, _, _ = n.text(v)
					fmt.Fprintf(&b, "%s: %s\n", k, v)
				}
			}
		} else {
			fmt.Fprintf(&b, "Content-Type: %s\n", ctype)
		}
		b.WriteString(body)
		if !strings.HasSuffix(body, "\n") {
			b.WriteString("\n(no newline at the end)\n")
		}
	}
	return b.String()
}

// gzipAnswer names the public gzip member a warc.gz answer is, byte for byte, or decodes it; raw
// is the record it holds.
func (d *goldenData) gzipAnswer(n *normaliser, body []byte) (text string, raw []byte) {
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return fmt.Sprintf("(not gzip: %v)\n", err), nil
	}
	if raw, err = io.ReadAll(zr); err != nil {
		return fmt.Sprintf("(broken gzip: %v)\n", err), nil
	}
	for file, ms := range d.at {
		for _, m := range ms {
			if bytes.Equal(m.gz, body) {
				name, _, _ := n.text(file)
				return fmt.Sprintf("(the gzip member of {%s} in %s, byte for byte)\n",
					n.ids[uuidRE.FindString(m.rec.get("WARC-Record-ID"))], name), raw
			}
		}
	}
	return "(no public gzip member is this one; decoded:)\n" + n.render(parseRecord(raw)), raw
}

// Measurements of this machine in command output: replaced, see TestGolden.
var measured = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(?m)^(duration +)[0-9.a-zµ]+$`), "${1}{clock}"},
	{regexp.MustCompile(`(?m)^(rate +)[0-9.]+( pages/s)$`), "${1}{clock}${2}"},
	{regexp.MustCompile(`(?m)^(memory +)[0-9.]+( MiB peak RSS)$`), "${1}{machine}${2}"},
	{regexp.MustCompile(`"duration_ms":[0-9.e+-]+`), `"duration_ms":{clock}`},
	{regexp.MustCompile(`(from the sealed WARC files in )[0-9.a-zµ]+`), "${1}{clock}"},
	{regexp.MustCompile(`(?m)^(wrote .*, )[0-9]+( bytes)$`), "${1}{size}${2}"}, // a WACZ holds shards of random record ids
}

// commands is commands.txt: the command log, normalised.
func (n *normaliser) commands(log string) string {
	for _, m := range measured {
		log = m.re.ReplaceAllString(log, m.with)
	}
	s, _, _ := n.text(log)
	return visible(s)
}

// exportText is export.txt: the CDXJ index that export --cdx wrote, and the WACZ that export
// --wacz wrote, member by member (its archive/ members are the public shards, as they are, so
// only their names are shown; the text members are normalised like every other file).
func (d *goldenData) exportText(n *normaliser, dir string) string {
	var b strings.Builder
	cdxj, err := os.ReadFile(filepath.Join(dir, "released.cdxj"))
	if err != nil {
		n.errs = append(n.errs, err.Error())
	}
	b.WriteString("=== released.cdxj\n")
	b.WriteString(d.cdxj(n, "released.cdxj", strings.SplitAfter(string(cdxj), "\n")))
	zr, err := zip.OpenReader(filepath.Join(dir, "released.wacz"))
	if err != nil {
		n.errs = append(n.errs, err.Error())
		return b.String()
	}
	defer zr.Close()
	for _, f := range zr.File {
		name, _, _ := n.text(f.Name)
		method := "stored"
		if f.Method == zip.Deflate {
			method = "deflated"
		}
		fmt.Fprintf(&b, "=== released.wacz %s (%s)\n", name, method)
		if strings.HasPrefix(f.Name, "archive/") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			n.errs = append(n.errs, err.Error())
			continue
		}
		content, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			n.errs = append(n.errs, err.Error())
			continue
		}
		switch {
		case strings.HasSuffix(f.Name, ".cdxj"):
			b.WriteString(d.cdxj(n, f.Name, strings.SplitAfter(string(content), "\n")))
			continue
		case strings.HasSuffix(f.Name, ".jsonl"): // pages: ids hash record ids, order follows the crawl's
			s, _, _ := n.text(pageIDRE.ReplaceAllString(string(content), `"id":"{page id}"`))
			lines := strings.SplitAfter(s, "\n")
			sort.Strings(lines)
			b.WriteString(visible(strings.Join(lines, "")) + "\n")
			continue
		case strings.HasPrefix(f.Name, "datapackage"): // each file's hash and size, checked here
			content = waczHashRE.ReplaceAllFunc(content, func(w []byte) []byte {
				m := waczHashRE.FindSubmatch(w)
				if got := waczSum(zr, string(m[1])); got != string(m[3]) {
					n.errs = append(n.errs, fmt.Sprintf("released.wacz %s: hash of %s is %s, not %s", f.Name, m[1], m[3], got))
				}
				return fmt.Appendf(nil, `"path": "%s",%s"hash": "sha256:{ok}"`, m[1], m[2])
			})
			content = waczBytesRE.ReplaceAll(content, []byte(`"bytes": {bytes}`))
		}
		s, _, _ := n.text(d.locations(string(content)))
		b.WriteString(visible(s) + "\n")
	}
	return b.String()
}

var (
	pageIDRE    = regexp.MustCompile(`"id":"[0-9a-f]{32}"`)
	waczHashRE  = regexp.MustCompile(`"path": ?"([^"]+)",(\s*)"hash": ?"sha256:([0-9a-f]{64})"`)
	waczBytesRE = regexp.MustCompile(`"bytes": [0-9]+`)
)

// waczSum is the SHA-256 of a WACZ member, in hex.
func waczSum(zr *zip.ReadCloser, name string) string {
	f, err := zr.Open(name)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}
