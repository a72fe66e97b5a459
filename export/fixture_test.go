package export

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
)

// fix is one capture of a test archive's public side.
type fix struct {
	url     string
	at      time.Duration // after fixT0
	status  int
	mime    string
	head    string // extra HTTP header lines, each ending in \r\n
	body    string
	usage   []string
	revisit string // the url of the capture it revisits (same payload), "" for a response
	damaged bool   // its WARC-Payload-Digest is not its payload's
}

var fixT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fixArchive is a public directory written by buildPublic.
type fixArchive struct {
	dir    string            // the public directory
	fsys   fs.FS             // the same, as an fs.FS
	ids    map[string]string // url → capture id
	shards []string          // shard paths relative to public/
	// members: capture id → its request, response and metadata members
	members map[string][3]public.Location
}

// buildPublic writes a public directory: one shard per element of shards (a warcinfo record, then
// the request, response or revisit, and metadata member of each capture, each its own gzip
// member), the shards' CDXJ as the releaser writes it, a tombstone file, and the audit log.
func buildPublic(t *testing.T, shards ...[]fix) *fixArchive {
	t.Helper()
	dir := t.TempDir()
	a := &fixArchive{dir: dir, fsys: os.DirFS(dir), ids: map[string]string{}, members: map[string][3]public.Location{}}
	for _, d := range []string{layout.ShardsDir, layout.TombstonesDir} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	digests := map[string]string{}
	var log bytes.Buffer
	n := 0
	for si, caps := range shards {
		name := public.WARCName(public.ShardPrefix, fixT0.Add(time.Duration(si)*time.Hour), si+1)
		rel := layout.ShardsDir + "/" + name
		a.shards = append(a.shards, rel)
		var warc bytes.Buffer
		warc.Write(member(t, "warcinfo", fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", 999999-si), "", fixT0, "application/warc-fields", "software: test\r\n", nil))
		var lines [][]byte
		for _, c := range caps {
			n++
			id := fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", n)
			a.ids[c.url] = id
			at := fixT0.Add(c.at)
			var locs [3]public.Location
			add := func(i int, b []byte) {
				locs[i] = public.Location{File: rel, Offset: int64(warc.Len()), Length: int64(len(b))}
				warc.Write(b)
			}
			add(0, member(t, "request", fmt.Sprintf("<urn:uuid:00000000-0000-4000-9000-%012d>", n), c.url, at,
				"application/http;msgtype=request", "GET / HTTP/1.1\r\nHost: example\r\n\r\n", nil))
			httpHead := fmt.Sprintf("HTTP/1.1 %d X\r\nContent-Type: %s\r\n%s\r\n", c.status, c.mime, c.head)
			var digest string
			var fields [][2]string
			block := httpHead + c.body
			typ := "response"
			if c.revisit != "" {
				typ, block, digest = "revisit", httpHead, digests[c.revisit]
				fields = [][2]string{{"WARC-Refers-To", a.ids[c.revisit]}, {"WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"}}
			} else {
				sum := sha256.Sum256([]byte(c.body))
				digest = "sha256:" + hex.EncodeToString(sum[:])
				if c.damaged {
					digest = "sha256:" + strings.Repeat("0", 64)
				}
				digests[c.url] = digest
			}
			fields = append(fields, [2]string{"WARC-Payload-Digest", digest})
			add(1, member(t, typ, id, c.url, at, "application/http;msgtype=response", block, fields))
			add(2, member(t, "metadata", fmt.Sprintf("<urn:uuid:00000000-0000-4000-a000-%012d>", n), c.url, at,
				"application/json", `{"usage":"facts"}`, nil))
			a.members[id] = locs
			key, err := surt.Key(c.url)
			if err != nil {
				t.Fatal(err)
			}
			line, err := public.FormatLine(key, at, public.CDXJ{URL: c.url, Mime: c.mime, Status: c.status, Digest: digest,
				Length: locs[1].Length, Offset: locs[1].Offset, Filename: rel, Usage: c.usage,
				ReleaseAt: at.Format(time.RFC3339Nano), ID: id, State: public.StateReleased, Time: at.Format(time.RFC3339Nano),
				Revisit: c.revisit != "", RefersTo: map[bool]string{true: a.ids[c.revisit]}[c.revisit != ""]})
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, line)
			e, _ := json.Marshal(public.LogEntry{Pass: fixT0, Event: public.EventReleased, ID: id, URL: c.url, Digest: digest,
				File: rel, Offset: locs[1].Offset, Length: locs[1].Length, Request: &locs[0], Metadata: &locs[2]})
			log.Write(append(e, '\n'))
		}
		writeFile(t, filepath.Join(dir, rel), warc.Bytes())
		writeFile(t, filepath.Join(dir, layout.ShardsDir, public.CDXJName(name)), bytes.Join(sortedCopy(lines), nil))
	}
	// A tombstone line: an embargoed capture, which no export may include.
	tomb, err := public.FormatLine("com,example)/embargoed", fixT0, public.CDXJ{URL: "http://example.com/embargoed",
		Mime: "text/html", Status: 200, Digest: "sha256:00", Length: 10, Offset: 0, Filename: "tombstones/T.warc.gz",
		ReleaseAt: fixT0.Add(90 * 24 * time.Hour).Format(time.RFC3339Nano), ID: "<urn:uuid:embargoed>",
		State: public.StateEmbargoed, Time: fixT0.Format(time.RFC3339Nano)})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, layout.TombstonesDir, "TOMBSTONES-20260301120000-00001.cdxj"), tomb)
	writeFile(t, filepath.Join(dir, layout.ReleaseLogFile), log.Bytes())
	return a
}

// member is one WARC record as its own gzip member.
func member(t *testing.T, typ, id, url string, date time.Time, ctype, block string, fields [][2]string) []byte {
	t.Helper()
	var rec strings.Builder
	rec.WriteString("WARC/1.1\r\nWARC-Type: " + typ + "\r\nWARC-Record-ID: " + id + "\r\nWARC-Date: " + date.Format(time.RFC3339Nano) + "\r\n")
	if url != "" {
		rec.WriteString("WARC-Target-URI: " + url + "\r\n")
	}
	for _, f := range fields {
		rec.WriteString(f[0] + ": " + f[1] + "\r\n")
	}
	fmt.Fprintf(&rec, "Content-Type: %s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", ctype, len(block), block)
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(rec.String()))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedCopy(lines [][]byte) [][]byte {
	out := append([][]byte(nil), lines...)
	return sortLines(out)
}

// standardFixture is the archive most tests use: two shards, usage preferences of every kind, a
// revisit, an HTML page with a chunked body and one with a gzip body.
func standardFixture(t *testing.T) *fixArchive {
	t.Helper()
	return buildPublic(t, standardShards(t)...)
}

// standardShards are the captures of standardFixture.
func standardShards(t *testing.T) [][]fix {
	return [][]fix{
		{
			{url: "http://example.com/", status: 200, mime: "text/html", body: "<html><head><title> Home &amp; away </title></head><body>hi</body></html>", usage: []string{"train-ai=n"}},
			{url: "http://example.com/style.css", at: time.Minute, status: 200, mime: "text/css", body: "body{}", usage: []string{"train-ai=y"}},
			{url: "http://example.com/news/a", at: 2 * time.Minute, status: 200, mime: "text/html", head: "Transfer-Encoding: chunked\r\n",
				body: "1b\r\n<title>Chunked news</title>\r\n0\r\n\r\n"},
			{url: "http://example.com/news/b", at: 3 * time.Minute, status: 200, mime: "text/html", head: "Content-Encoding: gzip\r\n",
				body: gzipString(t, "<!doctype html><title>Zipped\n  news</title><p>b"), usage: []string{"search=n", "train-ai=y"}},
		},
		{
			{url: "http://example.com/again", at: 24 * time.Hour, status: 200, mime: "text/html", body: "<title>Home &amp; away</title>", usage: []string{"train-ai=y"}, revisit: "http://example.com/"},
			{url: "http://example.com/missing", at: 25 * time.Hour, status: 404, mime: "text/html", body: "<title>Not found</title>"},
		},
	}
}

func gzipString(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
