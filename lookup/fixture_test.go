package lookup

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// fixture writes a public/ directory the way the releaser lays it out: shards with gzip members
// and their CDXJ, tombstone CDXJ, state.json, and the public index, rebuilt from the CDXJ files
// at every commit (hand-written lines may be malformed; the end-to-end test uses the releaser,
// which commits segments instead).
type fixture struct {
	t       testing.TB
	dir     string // the public directory
	cdxj    map[string][]string
	shards  map[string]*bytes.Buffer
	gen     int
	log     []public.LogEntry // release-log.jsonl, one entry per released capture
	serial  int               // of the file names written to: a new serial is a new pass's files
	rebuilt bytes.Buffer      // what the last reindex logged
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "public")
	return &fixture{t: t, dir: dir, cdxj: map[string][]string{}, shards: map[string]*bytes.Buffer{}, serial: 1}
}

// add writes one CDXJ line for c into file (relative to public/).
func (f *fixture) add(file string, c public.CDXJ) {
	f.t.Helper()
	key, err := surt.Key(c.URL)
	if err != nil {
		f.t.Fatal(err)
	}
	ts, err := time.Parse(time.RFC3339, c.Time)
	if err != nil {
		f.t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		f.t.Fatal(err)
	}
	f.cdxj[file] = append(f.cdxj[file], key+" "+ts.Format("20060102150405")+" "+string(b))
}

// tombstone adds an embargoed capture.
func (f *fixture) tombstone(c public.CDXJ) {
	name := fmt.Sprintf("tombstones/TOMBSTONES-20261129000000-%05d", f.serial)
	c.State = "embargoed"
	c.Filename, c.Offset, c.Length = name+".warc.gz", 0, 100
	f.add(name+".cdxj", c)
}

// release adds a released capture whose response record carries body; it returns the line written.
func (f *fixture) release(c public.CDXJ, contentType, body string) public.CDXJ {
	f.t.Helper()
	return f.releaseMember(c, gzipped(warcRecord(c, contentType, body)))
}

// releaseMember adds a released capture whose record is the gzip member given, as it is.
func (f *fixture) releaseMember(c public.CDXJ, member []byte) public.CDXJ {
	f.t.Helper()
	name := fmt.Sprintf("shards/PUBLIC-20261129000000-%05d", f.serial)
	shard := name + ".warc.gz"
	buf := f.shards[shard]
	if buf == nil {
		buf = &bytes.Buffer{}
		f.shards[shard] = buf
	}
	c.State, c.Filename, c.Offset = "released", shard, int64(buf.Len())
	buf.Write(member)
	if c.Length == 0 {
		c.Length = int64(len(member))
	}
	f.add(name+".cdxj", c)
	releaseAt, _ := time.Parse(time.RFC3339, c.ReleaseAt)
	f.log = append(f.log, public.LogEntry{Pass: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), Event: public.EventReleased,
		ID: c.ID, URL: c.URL, Digest: c.Digest, ReleaseAt: releaseAt, File: c.Filename, Offset: c.Offset, Length: c.Length})
	return c
}

// warcRecord is the uncompressed response (or revisit) record of c, with its digests.
func warcRecord(c public.CDXJ, contentType, body string) string {
	http := "HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\n\r\n" + body
	typ, payload := "response", sha256sum(body)
	if c.Revisit {
		typ, http, payload = "revisit", "HTTP/1.1 200 OK\r\nContent-Type: "+contentType+"\r\n\r\n", c.Digest
	}
	return "WARC/1.1\r\nWARC-Type: " + typ + "\r\nWARC-Record-ID: " + c.ID + "\r\nWARC-Target-URI: " + c.URL +
		"\r\nWARC-Date: " + c.Time + "\r\nContent-Type: application/http;msgtype=response\r\nWARC-Block-Digest: " +
		sha256sum(http) + "\r\nWARC-Payload-Digest: " + payload + "\r\nContent-Length: " +
		fmt.Sprint(len(http)) + "\r\n\r\n" + http + "\r\n\r\n"
}

// gzipped is s as one gzip member.
func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// sha256sum is the WARC digest of s as the store writes it by default.
func sha256sum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// commit writes every file, byte-sorted CDXJ, and state.json with the next generation.
func (f *fixture) commit() {
	f.t.Helper()
	for _, d := range []string{"shards", "tombstones"} {
		if err := os.MkdirAll(filepath.Join(f.dir, d), 0o755); err != nil {
			f.t.Fatal(err)
		}
	}
	for name, lines := range f.cdxj {
		slices.Sort(lines)
		f.write(name, []byte(strings.Join(lines, "\n")+"\n"))
	}
	for name, b := range f.shards {
		f.write(name, b.Bytes())
	}
	var log bytes.Buffer
	for _, e := range f.log {
		b, err := json.Marshal(e)
		if err != nil {
			f.t.Fatal(err)
		}
		log.Write(append(b, '\n'))
	}
	f.write("release-log.jsonl", log.Bytes())
	f.gen++
	released, tombstoned := 0, 0
	for name, lines := range f.cdxj {
		if strings.HasPrefix(name, "shards/") {
			released += len(lines)
		} else {
			tombstoned += len(lines)
		}
	}
	f.write("state.json", fmt.Appendf(nil, `{"generation": %d, "last_pass": "2026-11-29T21:00:00Z", "next_release": null, "released": %d, "tombstoned": %d}`,
		f.gen, released, tombstoned))
	f.reindex()
}

// reindex rebuilds the public index from the CDXJ files.
func (f *fixture) reindex() {
	f.t.Helper()
	f.rebuilt.Reset()
	if _, err := pubindex.Rebuild(context.Background(), f.dir, int64(f.gen), slog.New(slog.NewTextHandler(&f.rebuilt, nil))); err != nil {
		f.t.Fatal(err)
	}
}

// write replaces one file atomically, as the releaser does.
func (f *fixture) write(name string, b []byte) {
	f.t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.WriteFile(p+".tmp", b, 0o644); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		f.t.Fatal(err)
	}
}

// server opens a Server over the fixture at a fixed now.
func (f *fixture) server(now time.Time) *Server {
	f.t.Helper()
	s, err := Open(f.dir, Options{Now: func() time.Time { return now }, Logger: discard})
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

var testNow = time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)

// standard is the fixture most tests share: one URL with an embargoed and a released capture,
// a released capture that also has a tombstone line, a revisit, and a tree of pages for prefix queries.
func standard(t testing.TB) *fixture {
	f := newFixture(t)
	f.tombstone(public.CDXJ{
		URL: "https://example.com/a", Mime: "text/html", Status: 200, Digest: "sha256:aaaa", ID: "<urn:uuid:a2>",
		Time: "2026-11-29T20:00:00Z", ReleaseAt: "2027-02-27T20:00:00Z", EmbargoSource: "header", Usage: []string{"train-ai=n"},
		Headers: [][2]string{{"Content-Type", "text/html"}, {"Last-Modified", "Sun, 29 Nov 2026 19:00:00 GMT"}},
	})
	f.release(public.CDXJ{
		URL: "https://example.com/a", Mime: "text/html", Status: 200, Digest: "sha256:bbbb", ID: "<urn:uuid:a1>",
		Time: "2026-08-01T10:00:00Z", ReleaseAt: "2026-08-08T10:00:00Z", EmbargoSource: "robots.txt", Usage: []string{"search=y", "train-ai=y"},
		UsageRobots: []string{"train-ai=y, search=y"}, UsageHeader: []string{"train-ai=y;note=\"as stated\"", "x-label=n"},
	}, "text/html", "<p>old version of a</p>")
	// One capture with a tombstone line from an earlier pass and now a released line (which
	// lacks the embargo source its tombstone line has).
	f.tombstone(public.CDXJ{
		URL: "https://example.com/b", Mime: "text/plain", Status: 200, Digest: "sha256:cccc", ID: "<urn:uuid:b1>",
		Time: "2026-10-01T00:00:00Z", ReleaseAt: "2026-10-08T00:00:00Z", EmbargoSource: "robots.txt",
		Headers: [][2]string{{"Content-Type", "text/plain"}},
	})
	f.release(public.CDXJ{
		URL: "https://example.com/b", Mime: "text/plain", Status: 200, Digest: "sha256:cccc", ID: "<urn:uuid:b1>",
		Time: "2026-10-01T00:00:00Z", ReleaseAt: "2026-10-08T00:00:00Z",
	}, "text/plain", "b body")
	f.release(public.CDXJ{
		URL: "https://example.com/b", Mime: "text/plain", Status: 200, Digest: "sha256:cccc", ID: "<urn:uuid:b2>",
		Time: "2026-10-02T00:00:00Z", ReleaseAt: "2026-10-09T00:00:00Z", Revisit: true, RefersTo: "<urn:uuid:b1>",
	}, "text/plain", "")
	for i := range 25 {
		f.tombstone(public.CDXJ{
			URL: fmt.Sprintf("https://example.com/tree/p%02d", i), Status: 200, Digest: "sha256:dd", ID: fmt.Sprintf("<urn:uuid:t%d>", i),
			Time: "2026-11-20T00:00:00Z", ReleaseAt: fmt.Sprintf("2026-12-%02dT12:00:00Z", 1+i%5),
		})
	}
	f.tombstone(public.CDXJ{
		URL: "https://example.com/treehouse", Status: 200, Digest: "sha256:ee", ID: "<urn:uuid:th>",
		Time: "2026-11-20T00:00:00Z", ReleaseAt: "2026-12-20T00:00:00Z",
	})
	f.commit()
	return f
}
