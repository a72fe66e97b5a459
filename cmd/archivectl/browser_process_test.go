package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/public"
)

// browserSite is three loopback origins whose page loads, by script only, JSON, a font, images
// and a lazy image: the site (robots.txt disallowing /private/), the images (Archive-Embargo: w)
// and the dead one (robots.txt answering 503).
type browserSite struct {
	site, images, dead *crawlertest.Server
}

// pngMark is an image's payload: a PNG signature and a marker to find it in the public files.
func pngMark(name string) string { return "\x89PNG\r\n\x1a\nIMAGE-MARK-" + name }

func newBrowserSite(t *testing.T) *browserSite {
	t.Helper()
	b := &browserSite{}
	b.images = crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "User-agent: *\nArchive-Embargo: w\nAllow: /\n")
			return
		}
		name, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".png")
		if !ok || strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		time.Sleep(20 * time.Millisecond) // a slow origin: overlapping requests would show
		w.Header().Set("Content-Type", "image/png")
		fmt.Fprint(w, pngMark(name))
	}))
	b.dead = crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, `{"tracked": true}`)
	}))
	img, dead := b.images.URL, b.dead.URL
	page := `<!doctype html><html><head><title>browser</title><script src="/app.js"></script></head>
<body><p>Script-loaded page.</p><img src="` + img + `/static.png"><a href="/plain">plain</a>
<div id="tall" style="height:2500px">tall</div></body></html>`
	app := `addEventListener("DOMContentLoaded", async () => {
  const style = document.createElement("style");
  style.textContent = "@font-face{font-family:Mark;src:url(/font.woff2)} body{font-family:Mark}";
  document.head.append(style);
  for (let i = 1; i <= 6; i++) { const im = new Image(); im.src = "` + img + `/p" + i + ".png"; document.body.append(im); }
  const dyn = document.createElement("img"); dyn.src = "` + img + `/dynamic.png"; document.body.append(dyn);
  const lazy = document.createElement("img"); lazy.loading = "lazy"; lazy.src = "` + img + `/lazy.png"; document.body.append(lazy);
  try { new WebSocket("ws://" + location.host + "/ws"); } catch (e) {}
  fetch("/private/secret.json").catch(() => {});
  fetch("` + dead + `/beacon.json").catch(() => {});
  const d = await (await fetch("/data.json")).json();
  const a = document.createElement("a"); a.href = d.next; a.textContent = "next"; document.body.append(a);
});`
	b.site = crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, app)
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"next": "/from-script"}`)
		case "/private/secret.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"secret": true}`)
		case "/font.woff2":
			w.Header().Set("Content-Type", "font/woff2")
			fmt.Fprint(w, "wOF2-not-really")
		case "/plain", "/from-script":
			w.Header().Set("Content-Type", "text/plain") // not HTML: never rendered
			fmt.Fprint(w, "text "+r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() { b.site.Close(); b.images.Close(); b.dead.Close() })
	return b
}

// TestCrawlBrowser crawls the three-origin site with --browser through the built binary and
// checks from the servers' own logs that the browser made no request itself, that nothing
// disallowed was requested, that each origin saw one request at a time at the delay, and that
// the script-loaded images keep their origin's embargo: sealed at +1 day, public at +8.
func TestCrawlBrowser(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	exe := archivectlBinary(t)
	b := newBrowserSite(t)
	data := t.TempDir()
	const delay = 100 * time.Millisecond
	yaml := fmt.Sprintf("crawl:\n  delay: %s\n  browser:\n    chromium: %s\n    tabs: 1\n    wait: 20s\n", delay, chromium)
	start := time.Now()
	r := waitCrawl(t, crawlCmd(t, exe, data, []string{b.site.URL + "/"}, yaml, "--browser", "-v"))
	if r.code != 0 {
		t.Fatalf("crawl --browser: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "WebSocket refused") {
		t.Errorf("the WebSocket was not logged as refused:\n%s", r.stderr)
	}

	servers := []struct {
		name string
		s    *crawlertest.Server
	}{{"site", b.site}, {"images", b.images}, {"dead", b.dead}}
	for _, o := range servers {
		for _, h := range o.s.Log() {
			if !strings.Contains(h.UserAgent, "archivectl/") || strings.Contains(h.UserAgent, "Chrome") {
				t.Errorf("%s%s was requested with User-Agent %q: the browser reached the network", o.name, h.Path, h.UserAgent)
			}
		}
		if err := o.s.CheckPolite(delay); err != nil {
			t.Errorf("%s: %v", o.name, err)
		}
	}
	count := func(s *crawlertest.Server, path string) int {
		n := 0
		for _, p := range s.Paths() {
			if p == path {
				n++
			}
		}
		return n
	}
	for _, p := range []string{"/private/secret.json", "/ws"} {
		if n := count(b.site, p); n > 0 {
			t.Errorf("site%s was requested %d times", p, n)
		}
	}
	for _, p := range b.dead.Paths() {
		if p != "/robots.txt" {
			t.Errorf("dead%s was requested though its robots.txt answers 503", p)
		}
	}

	caps := capturesByURL(sealedCaptures(t, data, false))
	page := b.site.URL + "/"
	// loaded_by per capture: "browser" for what only scripts load; what the HTML names too is
	// fetched by whichever asks first (the crawler's queue or the browser), once.
	loadedBy := map[string]string{
		b.site.URL + "/app.js": "either", b.images.URL + "/static.png": "either",
		b.site.URL + "/data.json": "browser", b.site.URL + "/font.woff2": "browser",
		b.images.URL + "/dynamic.png": "browser", b.images.URL + "/lazy.png": "browser",
	}
	for i := 1; i <= 6; i++ {
		loadedBy[fmt.Sprintf("%s/p%d.png", b.images.URL, i)] = "browser"
	}
	for u, want := range loadedBy {
		cs := caps[u]
		if len(cs) != 1 {
			t.Errorf("%s: %d captures, want 1", u, len(cs))
			continue
		}
		f := cs[0].facts
		if want == "browser" && (f["loaded_by"] != "browser" || f["requisite_of"] != page) {
			t.Errorf("%s: loaded_by %q, requisite_of %q; want browser, %s", u, f["loaded_by"], f["requisite_of"], page)
		}
	}
	for _, s := range []*crawlertest.Server{b.site, b.images} {
		for _, p := range s.Paths() {
			if p != "/robots.txt" && count(s, p) != 1 {
				t.Errorf("%s%s was requested %d times: a resource captured in the crawl is served from the capture", s.URL, p, count(s, p))
			}
		}
	}
	if cs := caps[page]; len(cs) != 1 || cs[0].facts["loaded_by"] != "" {
		t.Errorf("the page: %d captures (%v), want its own HTTP capture once", len(cs), cs)
	}
	if len(caps[b.site.URL+"/from-script"]) != 1 {
		t.Errorf("the link the script added to the DOM was not followed: %d captures", len(caps[b.site.URL+"/from-script"]))
	}
	if !regexp.MustCompile(`(?m)^browser +1 pages rendered, \d+ resources they loaded, [1-9][\d.]* MiB peak memory, 0 restarts$`).MatchString(r.stdout) {
		t.Errorf("the summary does not report the render:\n%s", r.stdout)
	}

	pub := layout.Public(data)
	for _, step := range []struct {
		days   int
		public bool
	}{{1, false}, {8, true}} {
		all := releaseAfter(t, exe, data, start, step.days)
		if !bytes.Contains(all, []byte("Script-loaded page.")) {
			t.Fatalf("+%dd: the page itself (no embargo) is not public", step.days)
		}
		for _, name := range []string{"dynamic", "lazy", "p1", "p6", "static"} {
			if got := bytes.Contains(all, []byte(pngMark(name))); got != step.public {
				t.Errorf("+%dd: image %s public %v, want %v", step.days, name, got, step.public)
			}
		}
		state := publicState(t, pub)
		if got := state[b.images.URL+"/dynamic.png"].State == public.StateReleased; got != step.public {
			t.Errorf("+%dd: dynamic.png released %v, want %v", step.days, got, step.public)
		}
	}
}

// chromiumsUnder lists the pids of processes whose command line names dir (their profile
// directory lies under it).
func chromiumsUnder(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte("--user-data-dir="+dir)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestCrawlBrowserKilled kills a crawl with SIGKILL while its browser renders a page: no
// Chromium process outlives it, and the same command resumes and finishes the crawl, leaving
// no browser profile behind.
func TestCrawlBrowserKilled(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	exe := archivectlBinary(t)
	rendering := make(chan struct{})
	var once sync.Once
	s := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><script>fetch("/slow.json")</script><a href="/b">b</a>`)
		case "/slow.json":
			once.Do(func() { close(rendering) })
			select { // answers slowly the first time: the crawl is killed meanwhile
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
			fmt.Fprint(w, `{}`)
		default:
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "page "+r.URL.Path)
		}
	}))
	defer s.Close()
	data := t.TempDir()
	profiles := layout.Browser(data)
	yaml := fmt.Sprintf("crawl:\n  delay: 0s\n  browser:\n    chromium: %s\n    wait: 20s\n", chromium)
	cmd := crawlCmd(t, exe, data, []string{s.URL + "/"}, yaml, "--browser")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-rendering:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the browser never asked for /slow.json")
	}
	if n := len(chromiumsUnder(profiles)); n == 0 {
		t.Fatal("no chromium runs while the page renders")
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for left := chromiumsUnder(profiles); len(left) > 0; left = chromiumsUnder(profiles) {
		if time.Now().After(deadline) {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("chromium processes %v outlived the killed crawl", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd = crawlCmd(t, exe, data, []string{s.URL + "/"}, yaml, "--browser")
	if r := waitCrawl(t, cmd); r.code != 0 || !strings.Contains(r.stderr, "crawl resumed") {
		t.Fatalf("resumed crawl: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if len(capturesByURL(sealedCaptures(t, data, false))[s.URL+"/b"]) != 1 {
		t.Error("the resumed crawl did not capture /b")
	}
	if left, err := os.ReadDir(profiles); err != nil || len(left) > 0 {
		t.Errorf("the browser profiles left after the crawl: %v, %v", left, err)
	}
}

// TestCrawlBrowserSnapshot crawls, with --browser and crawl.browser.snapshot both, a page under
// Archive-Embargo: w whose script writes text into its DOM: the rendered DOM and the screenshot
// are sealed as resource records (urn:dom:, urn:view:) concurrent to the page's response; a pass
// at +1 day releases neither and leaks nothing (the script's text is nowhere under public/, no
// tombstone names them); a pass at +8 days releases them with the page, byte for byte; verify
// is clean.
func TestCrawlBrowserSnapshot(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	exe := archivectlBinary(t)
	const mark = "RENDERED-ONLY-7f3a" // in the rendered DOM only: the served HTML builds it
	s := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nArchive-Embargo: w\nAllow: /\n")
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><title>snap</title><body style="background:#0a0"><p id=p>served</p>
<script>document.getElementById("p").textContent = ["RENDERED", "ONLY", "7f3a"].join("-");</script>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	data := t.TempDir()
	yaml := fmt.Sprintf("crawl:\n  delay: 0s\n  browser:\n    chromium: %s\n    tabs: 1\n    wait: 20s\n    snapshot: both\n", chromium)
	start := time.Now()
	if r := waitCrawl(t, crawlCmd(t, exe, data, []string{s.URL + "/"}, yaml, "--browser")); r.code != 0 || !strings.Contains(r.stderr, "chromium started") {
		t.Fatalf("crawl --browser: exit %d, chromium started for the page: %v\nstderr:\n%s", r.code, strings.Contains(r.stderr, "chromium started"), r.stderr)
	}
	page := s.URL + "/"
	caps := capturesByURL(sealedCaptures(t, data, false))
	if len(caps[page]) != 1 {
		t.Fatalf("the page: %d captures", len(caps[page]))
	}
	pe := caps[page][0].entry
	sealed := map[string][]byte{} // resource URI → its sealed gzip member
	var snapRelease time.Time
	for _, r := range []struct{ uri, mime string }{{"urn:dom:" + page, "text/html; charset=utf-8"}, {"urn:view:" + page, "image/png"}} {
		cs := caps[r.uri]
		if len(cs) != 1 {
			t.Fatalf("%s: %d captures, want 1", r.uri, len(cs))
		}
		c := cs[0]
		if c.recordType != "resource" || c.concurrentTo != pe.ID || c.entry.Mime != r.mime || c.facts["requisite_of_id"] != pe.ID {
			t.Errorf("%s: a %s record concurrent to %s, mime %s, facts %v; want a resource concurrent to the page %s", r.uri, c.recordType, c.concurrentTo, c.entry.Mime, c.facts, pe.ID)
		}
		if c.entry.ReleaseAt.Before(pe.ReleaseAt) || !c.entry.Withheld() || c.entry.Period != pe.Period {
			t.Errorf("%s: release %s (withheld %v, period %v), the page's %s (%v); want no earlier, withheld, the same period", r.uri, c.entry.ReleaseAt, c.entry.Withheld(), c.entry.Period, pe.ReleaseAt, pe.Period)
		}
		snapRelease = c.entry.ReleaseAt
		sealed[r.uri] = readMember(t, filepath.Join(layout.Sealed(data), c.entry.Response.File), c.entry.Response.Offset, c.entry.Response.Length)
	}
	if dom := testkit.Gunzip(t, sealed["urn:dom:"+page]); !bytes.Contains(dom, []byte(mark)) {
		t.Errorf("the sealed DOM snapshot lacks the script's text:\n%s", dom)
	}

	pub := layout.Public(data)
	for _, step := range []struct {
		days   int
		public bool
	}{{1, false}, {8, true}} {
		all := releaseAfter(t, exe, data, start, step.days)
		if got := bytes.Contains(all, []byte(mark)); got != step.public {
			t.Errorf("+%dd: the rendered DOM's text public %v, want %v", step.days, got, step.public)
		}
		if !step.public && (bytes.Contains(all, []byte("urn:dom:")) || bytes.Contains(all, []byte("urn:view:"))) {
			t.Errorf("+%dd: a snapshot is named under public/ (a tombstone or a line) before its page is released", step.days)
		}
		state := publicState(t, pub)
		if got := state[page].State == public.StateReleased; got != step.public {
			t.Errorf("+%dd: the page released %v, want %v", step.days, got, step.public)
		}
		// The lookup answers a snapshot's URI like a URL: nothing before the page is released,
		// then its capture and its payload (no "Open as page": it is no page of its own).
		srv := startServe(t, exe, "--data", data)
		var a capturesAnswer
		dom := "urn:dom:" + page
		code, body := srv.get(t, "/api/v1/captures?url="+url.QueryEscape(dom), &a)
		if released := code == 200 && len(a.Captures) == 1 && a.Captures[0].State == "released"; released != step.public || strings.Contains(body, mark) {
			t.Errorf("+%dd: the lookup answers %d for the DOM snapshot: %s", step.days, code, body)
		}
		code, body = srv.get(t, "/api/v1/record?format=payload&url="+url.QueryEscape(dom), nil)
		if got := code == 200 && strings.Contains(body, mark); got != step.public || !step.public && strings.Contains(body, mark) {
			t.Errorf("+%dd: the DOM snapshot's payload from the lookup: %d %.300q", step.days, code, body)
		}
		if code, body = srv.get(t, "/?url="+url.QueryEscape(dom), nil); step.public && (code != 200 || strings.Contains(body, `class="replay"`)) {
			t.Errorf("+%dd: the DOM snapshot's card: %d, replay link %v", step.days, code, strings.Contains(body, `class="replay"`))
		}
		srv.stop(t, syscall.SIGTERM)
		for uri, member := range sealed {
			l, ok := state[uri]
			if ok != step.public || ok && l.State != public.StateReleased {
				t.Errorf("+%dd: %s public line %v (%s), want released %v", step.days, uri, ok, l.State, step.public)
				continue
			}
			if ok {
				got := readMember(t, filepath.Join(layout.Shards(data), l.Filename), l.Offset, l.Length)
				if !bytes.Equal(got, member) {
					t.Errorf("+%dd: %s released is not its sealed record byte for byte", step.days, uri)
				}
			}
		}
	}
	mustRun(t, exe, "verify", "--data", data) // exits 1 on any problem
	mustRun(t, exe, "verify", "--reindex", "--data", data)
	mustRun(t, exe, "verify", "--data", data)
	if re := capturesByURL(sealedCaptures(t, data, false)); len(re["urn:dom:"+page]) != 1 || !re["urn:dom:"+page][0].entry.ReleaseAt.Equal(snapRelease) ||
		!re["urn:dom:"+page][0].entry.Withheld() {
		t.Errorf("after verify --reindex, the DOM snapshot's entry: %+v", re["urn:dom:"+page])
	}

	// The export indexes the snapshots (as Browsertrix's CDXJ does its urn:view: records) and
	// lists the page alone as a page.
	wacz := filepath.Join(t.TempDir(), "snap.wacz")
	mustRun(t, exe, "export", "--data", data, "--wacz", wacz)
	files, _ := readPackage(t, wacz)
	pages, cdx := string(files["pages/pages.jsonl"]), string(files["indexes/index.cdxj"])
	if strings.Count(pages, `"url":`) != 1 || !strings.Contains(pages, `"url":"`+page+`"`) {
		t.Errorf("pages.jsonl lists other pages than %s:\n%s", page, pages)
	}
	for _, uri := range []string{"urn:dom:" + page, "urn:view:" + page} {
		if !strings.Contains(cdx, "\n"+uri+" ") {
			t.Errorf("the WACZ index has no line keyed %s:\n%s", uri, cdx)
		}
	}
	checkJSWACZ(t, replayEngines(t), files) // the same lines as js-wacz (warcio's indexer) makes
}

// readMember reads length bytes at offset of file.
func readMember(t *testing.T, file string, offset, length int64) []byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, length)
	if _, err := f.ReadAt(b, offset); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCrawlBrowserSnapshotOfEmbargoedLoads: a page of an origin without embargo whose script
// shows JSON from another origin under Archive-Embargo: q. The page is public after a pass at +8
// days, the JSON and the DOM snapshot that shows it are not (a snapshot takes the longest
// embargo of what it shows); after +91 days all three are.
func TestCrawlBrowserSnapshotOfEmbargoedLoads(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	exe := archivectlBinary(t)
	const mark = "QUARTERLY-DATA-5c1e"
	data := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nArchive-Embargo: q\nAllow: /\n")
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			fmt.Fprintf(w, `{"text": %q}`, mark)
		default:
			http.NotFound(w, r)
		}
	}))
	defer data.Close()
	site := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<!doctype html><title>loads</title><p id=p>waiting</p>
<script>fetch(%q).then(r => r.json()).then(j => { document.getElementById("p").textContent = j.text; });</script>`, data.URL+"/data.json")
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	dir := t.TempDir()
	yaml := fmt.Sprintf("crawl:\n  delay: 0s\n  browser:\n    chromium: %s\n    tabs: 1\n    wait: 20s\n    snapshot: dom\n", chromium)
	start := time.Now()
	if r := waitCrawl(t, crawlCmd(t, exe, dir, []string{site.URL + "/"}, yaml, "--browser")); r.code != 0 {
		t.Fatalf("crawl --browser: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	page, dom := site.URL+"/", "urn:dom:"+site.URL+"/"
	caps := capturesByURL(sealedCaptures(t, dir, false))
	if len(caps[dom]) != 1 || len(caps[data.URL+"/data.json"]) != 1 {
		t.Fatalf("sealed: %d DOM snapshots, %d captures of the JSON; want 1 each", len(caps[dom]), len(caps[data.URL+"/data.json"]))
	}
	if got := testkit.Gunzip(t, readMember(t, filepath.Join(layout.Sealed(dir), caps[dom][0].entry.Response.File), caps[dom][0].entry.Response.Offset, caps[dom][0].entry.Response.Length)); !bytes.Contains(got, []byte(mark)) {
		t.Fatalf("the DOM snapshot does not show the JSON's text:\n%s", got)
	}
	for _, step := range []struct {
		days             int
		page, json, snap bool
	}{{8, true, false, false}, {91, true, true, true}} {
		all := releaseAfter(t, exe, dir, start, step.days)
		state := publicState(t, layout.Public(dir))
		released := func(u string) bool { return state[u].State == public.StateReleased }
		if released(page) != step.page || released(data.URL+"/data.json") != step.json || released(dom) != step.snap {
			t.Errorf("+%dd: released page %v, JSON %v, DOM snapshot %v; want %v, %v, %v", step.days,
				released(page), released(data.URL+"/data.json"), released(dom), step.page, step.json, step.snap)
		}
		if got := bytes.Contains(all, []byte(mark)); got != step.json {
			t.Errorf("+%dd: the embargoed JSON's text under public/ %v, want %v", step.days, got, step.json)
		}
	}
	mustRun(t, exe, "verify", "--data", dir)
}

// releaseAfter runs a release pass days after start and returns every byte under public/ (publicBytes).
func releaseAfter(t *testing.T, exe, data string, start time.Time, days int) []byte {
	t.Helper()
	now := start.Add(time.Duration(days) * 24 * time.Hour).UTC().Format(time.RFC3339)
	mustRun(t, exe, "release", "--data", data, "--now", now)
	return publicBytes(t, layout.Public(data))
}

// TestCrawlBrowserNoHTML: a crawl with --browser that meets no HTML page never starts chromium
// (it is started for the first page it renders), and captures what it meets as usual.
func TestCrawlBrowserNoHTML(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	exe := archivectlBinary(t)
	s := crawlertest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/notes.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "plain text, see /data.json")
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"html": false}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	data := t.TempDir()
	yaml := fmt.Sprintf("crawl:\n  delay: 0s\n  browser:\n    chromium: %s\n", chromium)
	r := waitCrawl(t, crawlCmd(t, exe, data, []string{s.URL + "/notes.txt", s.URL + "/data.json"}, yaml, "--browser"))
	if r.code != 0 || !strings.Contains(r.stderr, "browser ready") {
		t.Fatalf("crawl --browser: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "chromium started") {
		t.Errorf("chromium was started for a crawl without HTML pages:\n%s", r.stderr)
	}
	caps := capturesByURL(sealedCaptures(t, data, false))
	for _, u := range []string{s.URL + "/notes.txt", s.URL + "/data.json"} {
		if len(caps[u]) != 1 {
			t.Errorf("%s: %d captures, want 1", u, len(caps[u]))
		}
	}
}
