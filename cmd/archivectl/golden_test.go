//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/cmd/archivectl/demoweb"
)

var update = flag.Bool("update", false, "TestGolden: rewrite testdata/golden from this run instead of comparing with it")

// TestGolden pins archivectl's whole output over the demo web, so that a refactor can prove it
// changes none of it. Only the built binary and its HTTP API are used: the demo web is crawled
// with `archivectl crawl`, released with `archivectl release --now` at the demo's now, +8, +32
// and +91 days (then once more at +91 days with --json), checked with `verify` (and
// `verify --reindex` at the end), looked up through `archivectl serve` after the first and the
// last pass, and `archivectl robots` is asked about a few URLs. testdata/golden holds:
//
//	commands.txt  every command line and its stdout, state.json after each pass
//	files.txt     every file and directory of the data directory with its mode
//	sealed.txt    the sealed WARC file, record by record: fields and blocks, decoded
//	public.txt    shards (each record named, or shown when not byte-identical to its sealed
//	              gzip member), tombstone records decoded, every CDXJ file, release-log.jsonl,
//	              state.json
//	api.txt       /api/v1/captures for every URL of the demo web, prefix queries (paginated),
//	              /api/v1/record in its three formats, and error answers
//	export.txt    `archivectl export --cdx --wacz` after the last pass: the CDXJ, and the WACZ
//	              member by member (shards by name, text members decoded, their hashes checked)
//
// Everything is compared byte for byte (CR shown as ␍), except these values, which cannot
// repeat from run to run; each is replaced by a token saying what it was:
//
//   - Real-clock times. `crawl` has no clock option, so capture times are the real time. The
//     demo web's clock (its relative Last-Modified values) and the release passes' --now are
//     fixed relative to "now", the start of the test + 10 minutes (so after every capture).
//     A time in any format (RFC 3339 with or without fraction, HTTP date, 14-digit and 17-digit
//     stamps, also inside file names) becomes {T weekly/news/+7d rfc3339ns} when it is exactly a
//     capture's instant (as the response record's WARC-Date gives it) plus an embargo period;
//     {crawl+7d http} when it falls within the crawl command (plus a period) but is too coarse
//     to name the capture (HTTP Date headers, CDXJ stamps, the sealed file's name); {now+8d
//     rfc3339} when it is the demo's now plus whole days; {clock http} for the lookup's Date
//     header (its clock is the real one too, and a record released by a pass ahead of it is served).
//     A release day in a day file's name (public/access/embargo-20270302.aclj) becomes
//     {day crawl+90d} or {day now+8d}, named the same way. Times far from today (the demo's fixed 2018, 2019 and 2100
//     Last-Modified values and what derives from them) are compared as they are; any other
//     time near today fails the test.
//   - The crawl summary's duration, rate (pages/s) and peak memory, release --json's
//     duration_ms and verify --reindex's duration: measurements of this machine.
//   - Record ids (random UUIDs; the releaser's own ids hash a date-bearing name), wherever they
//     appear (WARC-Record-ID, WARC-Concurrent-To, WARC-Refers-To, metadata and tombstone JSON,
//     CDXJ, release log), become the record's label: {response weekly/news/},
//     {tombstone monthly/news/}, {warcinfo FILE}.
//   - Loopback ports (the demo origins' and the lookup's) become the origin's name:
//     127.0.0.1:{weekly}, 127.0.0.1_{weekly} in a file name, 127.0.0.1:{lookup}.
//   - The host name in the sealed WARC file's name and warcinfo record becomes {host}.
//   - What derives from these: the lookup's paging cursor becomes {cursor}; a gzip member's
//     offset and length in CDXJ, release-log.jsonl and API answers (compression of random ids
//     varies, and origins are crawled in parallel) become @{LABEL} (the record found there)
//     and {length ok} (checked to be that member's length); a record's Content-Length and
//     digests, and an answer's Content-Length, are checked against the bytes they cover, then
//     written as {length ok} or sha256:{ok} only when those bytes hold a normalised value (for
//     an uncompressed length, one of variable width: a fractional time, the host name).
//   - Order across origins: the crawler fetches origins in parallel, so sealed and public WARC
//     records, tombstones and release-log lines of one pass are grouped by origin (file order
//     within an origin is kept and compared); CDXJ lines are checked to be sorted as written,
//     then sorted again after normalisation (ports sort differently from names).
//
// The umask is set to 022 so that file modes repeat; index.db and frontier.db (bbolt) are listed
// but not decoded: verify, the release passes and the lookup show their content.
//
// Rewrite the golden files after an intended change with
//
//	go test ./cmd/archivectl -run TestGolden -update
func TestGolden(t *testing.T) {
	exe := archivectlBinary(t)
	defer syscall.Umask(syscall.Umask(0o022))
	g := &goldenRun{t: t, exe: exe, dir: t.TempDir(), lookupPorts: map[string]bool{}}
	clockFrom := time.Now()
	now := clockFrom.UTC().Truncate(time.Second).Add(10 * time.Minute)
	site, err := demoweb.StartWith(demoweb.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	if err := os.WriteFile(filepath.Join(g.dir, "seeds.txt"), []byte(strings.Join(site.Seeds(), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	crawlFrom := time.Now()
	g.run("", "crawl", "--data", "data", "--delay", "0s", "seeds.txt")
	crawlTo := time.Now()
	if !crawlTo.Before(now) {
		t.Fatalf("the crawl took %s: the demo's now (start + 10 min) must come after it", crawlTo.Sub(crawlFrom))
	}
	// A time of a later command in the crawl's last second (a second-resolution Date header, the
	// WACZ's creation) would read as the crawl's: every later command starts in a later second.
	time.Sleep(time.Until(crawlTo.Truncate(time.Second).Add(time.Second)))
	g.robots(site)
	g.run("", "verify", "--data", "data")
	passes := []int{0, 8, 32, 91}
	for i, days := range passes {
		at := now.Add(time.Duration(days) * day).Format(time.RFC3339)
		g.run("", "release", "--data", "data", "--now", at)
		g.snapshot("data/public/state.json")
		g.run("", "verify", "--data", "data")
		if i == 0 {
			g.lookup("after the first pass", site, false)
		}
	}
	last := now.Add(time.Duration(passes[len(passes)-1]) * day).Format(time.RFC3339)
	g.run("", "release", "--data", "data", "--now", last, "--json") // a second pass at the same now: nothing to do
	g.lookup("after the last pass", site, true)
	g.run("", "verify", "--data", "data", "--reindex")
	g.run("", "export", "--data", "data", "--cdx", "released.cdxj", "--wacz", "released.wacz")

	n := &normaliser{now: now, crawlFrom: crawlFrom, crawlTo: crawlTo, clockFrom: clockFrom,
		ports: map[string]string{}, captures: map[int64]string{}, ids: map[string]string{}}
	for _, o := range site.Origins {
		n.ports[o.URL[strings.LastIndexByte(o.URL, ':')+1:]] = o.Name
	}
	n.hostname, _ = os.Hostname()
	for p := range g.lookupPorts {
		n.ports[p] = "lookup"
	}
	d := g.readData(t, n)
	got := map[string]string{
		"commands.txt": n.commands(g.log.String()),
		"files.txt":    d.files,
		"sealed.txt":   d.sealedText(n),
		"public.txt":   d.publicText(n),
		"api.txt":      d.apiText(n, g.api),
		"export.txt":   d.exportText(n, g.dir),
	}
	for _, e := range n.errs {
		t.Errorf("normalising: %s", e)
	}
	if t.Failed() {
		t.FailNow()
	}
	for _, name := range sortedKeys(got) {
		path := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got[name]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v; run go test ./cmd/archivectl -run TestGolden -update to create it", err)
			continue
		}
		if string(want) != got[name] {
			t.Errorf("%s differs from this run (- golden, + now):\n%s", path, lineDiff(string(want), got[name]))
		}
	}
}

// goldenRun runs the commands of the golden scenario and keeps their raw output.
type goldenRun struct {
	t           *testing.T
	exe         string
	dir         string // every command runs here; the data directory is "data"
	log         strings.Builder
	api         []exchange
	lookupPorts map[string]bool
}

// exchange is one request to the lookup service and its answer.
type exchange struct {
	section string
	show    string // the request as the golden file shows it (unescaped)
	status  int
	header  http.Header
	body    []byte
}

// run runs the binary with args in the run's directory, logs the command line and its stdout,
// and fails the test when it exits non-zero.
func (g *goldenRun) run(stdin string, args ...string) string {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.exe, args...)
	cmd.Dir = g.dir
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	fmt.Fprintf(&g.log, "$ archivectl %s\n%s", strings.Join(args, " "), stdout.String())
	if err != nil {
		g.t.Fatalf("archivectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// snapshot logs a file of the run's directory as it is now.
func (g *goldenRun) snapshot(rel string) {
	g.t.Helper()
	b, err := os.ReadFile(filepath.Join(g.dir, rel))
	if err != nil {
		g.t.Fatal(err)
	}
	fmt.Fprintf(&g.log, "--- %s\n%s", rel, b)
}

// robots asks `archivectl robots` about a few URLs of the demo web, fetched from their origins,
// and about two paths against a robots.txt read from stdin.
func (g *goldenRun) robots(site *demoweb.Site) {
	paths := map[string][]string{
		"aipref":      {"/open/maps.html", "/private/staff.html", "/essays/reading.html"},
		"blog":        {"/drafts/winter-plans.html"},
		"invalid":     {"/admin/login.html", "/articles/mesh-radio.html"},
		"monthly":     {"/news/letters.html", "/about.html"},
		"quarterly":   {"/cart.html", "/sale.html"},
		"unavailable": {"/status.html"},
		"weekly":      {"/subscribers/crossword.html", "/news/council-vote.html"},
	}
	args := []string{"robots"}
	for _, o := range site.Origins {
		for _, p := range paths[o.Name] {
			args = append(args, o.URL+p)
		}
	}
	g.run("", args...)
	g.run("User-agent: archivectl\nArchive-Embargo: w\nEmbargo-Allow: /news\nDisallow: /\nContent-Usage: /news/ train-ai=n\n",
		"robots", "--agent", "archivectl", "--robots", "-", "/news/a", "/about")
}

// lookup starts `archivectl serve` over the data directory, asks it about every URL of the demo
// web and more, and stops it.
func (g *goldenRun) lookup(section string, site *demoweb.Site, final bool) {
	t := g.t
	t.Helper()
	args := []string{"serve", "--data", "data", "--listen", "127.0.0.1:0"}
	cmd := exec.Command(g.exe, args...)
	cmd.Dir = g.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- line
		io.Copy(io.Discard, stdout)
	}()
	var line string
	select {
	case line = <-first:
	case <-time.After(20 * time.Second):
		t.Fatalf("archivectl serve did not start; stderr:\n%s", stderr.String())
	}
	fmt.Fprintf(&g.log, "$ archivectl %s\n%s", strings.Join(args, " "), line)
	base := strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(line, "archivectl serve: ")), "/")
	u, err := url.Parse(base)
	if err != nil || u.Port() == "" {
		t.Fatalf("archivectl serve printed %q; stderr:\n%s", line, stderr.String())
	}
	g.lookupPorts[u.Port()] = true

	do := func(method, show, path string) []byte {
		t.Helper()
		req, err := http.NewRequest(method, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		g.api = append(g.api, exchange{section: section, show: method + " " + show, status: resp.StatusCode, header: resp.Header, body: body})
		return body
	}
	get := func(show, path string) []byte { return do(http.MethodGet, show, path) }
	q := func(path string, kv ...string) (show, raw string) {
		var s, r []string
		for i := 0; i < len(kv); i += 2 {
			s = append(s, kv[i]+"="+kv[i+1])
			r = append(r, kv[i]+"="+url.QueryEscape(kv[i+1]))
		}
		return path + "?" + strings.Join(s, "&"), path + "?" + strings.Join(r, "&")
	}
	origin := map[string]string{}
	for _, o := range site.Origins {
		origin[o.Name] = o.URL
	}

	// Every URL the demo web serves (disallowed ones included), and each origin's robots.txt.
	seen := map[string]bool{}
	for _, p := range site.Pages() {
		for _, u := range []string{origin[p.Origin] + "/robots.txt", p.URL} {
			if !seen[u] {
				seen[u] = true
				get(q("/api/v1/captures", "url", u))
			}
		}
	}
	// The same capture asked for without scheme, and in upper case.
	get(q("/api/v1/captures", "url", strings.TrimPrefix(origin["blog"], "http://")+"/about.html"))
	get(q("/api/v1/captures", "url", strings.ToUpper(origin["weekly"])+"/NEWS/STORM-DAMAGE.HTML"))
	// Prefix queries: one origin's /news/, two captures a page, following the cursors.
	for cursor, pages := "", 0; pages < 10; pages++ {
		kv := []string{"url", origin["monthly"] + "/news/", "matchType", "prefix", "limit", "2"}
		if cursor != "" {
			kv = append(kv, "cursor", cursor)
		}
		var ans struct {
			Next string `json:"next_cursor"`
		}
		json.Unmarshal(get(q("/api/v1/captures", kv...)), &ans)
		if cursor = ans.Next; cursor == "" {
			break
		}
	}
	get(q("/api/v1/captures", "url", origin["blog"]+"/posts/", "matchType", "prefix"))
	// Records in each format, the released one of a URL by default or the one at a timestamp.
	page := origin["blog"] + "/posts/first-frost.html"
	var caps struct {
		Captures []struct {
			Timestamp string `json:"timestamp"`
		} `json:"captures"`
	}
	json.Unmarshal(get(q("/api/v1/captures", "url", page)), &caps)
	for _, f := range []string{"warc", "warc.gz", "payload"} {
		get(q("/api/v1/record", "url", page, "format", f))
	}
	if len(caps.Captures) > 0 {
		ts, err := time.Parse(time.RFC3339Nano, caps.Captures[0].Timestamp)
		if err != nil {
			t.Fatalf("timestamp of %s: %v", page, err)
		}
		get(q("/api/v1/record", "url", page, "timestamp", ts.UTC().Format("20060102150405"), "format", "payload"))
	}
	get(q("/api/v1/record", "url", origin["weekly"]+"/news/storm-damage.html"))
	get(q("/api/v1/record", "url", origin["weekly"]+"/news/council-vote.html")) // released by the pass at +8 d, ahead of the lookup's clock: served all the same
	get(q("/api/v1/record", "url", origin["aipref"]+"/robots.txt", "format", "payload"))
	get(q("/api/v1/record", "url", origin["blog"]+"/robots.txt"))
	if final {
		get(q("/api/v1/record", "url", page, "format", "xml"))
		get(q("/api/v1/record", "url", page, "timestamp", "20000101000000"))                                                             // no capture then: 302 to the closest
		get(q("/cdx", "url", origin["blog"]+"/posts/*", "output", "json", "fl", "urlkey,timestamp,original,mimetype,statuscode,digest")) // record lengths vary from run to run
		get("/timemap/link/"+page, "/timemap/link/"+page)
		get(q("/api/v1/record", "url", page, "timestamp", "yesterday"))
		get(q("/api/v1/record", "url", origin["monthly"]+"/about.html"))
		get(q("/api/v1/captures", "url", origin["monthly"]+"/news/", "matchType", "fuzzy"))
		get(q("/api/v1/captures", "url", "ftp://example.com/"))
		get(q("/api/v1/captures", "limit", "5"))
		get("/api/v2/captures", "/api/v2/captures")
		show, path := q("/api/v1/captures", "url", page)
		do(http.MethodPost, show, path)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("archivectl serve after SIGTERM: %v; stderr:\n%s", err, stderr.String())
	}
}

// noRedirects is the golden run's client: a redirect is recorded as it is answered.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
