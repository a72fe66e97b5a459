package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/store"
)

// TestCrawlPoliteAndRobots crawls three origins (robots.txt 200, 404 and 503) and checks
// politeness and robots decisions from the servers' logs, and the embargo and usage facts
// from the captures handed to the archive.
func TestCrawlPoliteAndRobots(t *testing.T) {
	t.Parallel()
	b := newOrigin(t, pages(map[string]string{
		"/":          `<a href="/open">o</a> <a href="/private/x">p</a>`,
		"/open":      `<img src="/img.png">`,
		"/private/x": `private but robots.txt is 404`,
		"/img.png":   `png`,
	}))
	c := newOrigin(t, status("/robots.txt", http.StatusServiceUnavailable, map[string]string{"/": `<a href="/x">x</a>`}))
	a := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/usage" {
			w.Header().Add("Content-Usage", "search=y")
		}
		pages(map[string]string{
			"/robots.txt": "User-agent: *\nArchive-Embargo: q\nContent-Usage: train-ai=n\nDisallow: /private\n",
			"/": `<a href="/usage">u</a><a href="/private/secret">s</a><a href="/news#frag">n</a>` +
				`<a href="` + b.URL + `/">b</a><a href="http://127.0.0.1:1/out-of-scope">x</a>`,
			"/usage":          `<a href="/">home</a><a href="/private">p</a>`,
			"/news":           `<link rel=stylesheet href="/style.css"><a href="/usage#again">u</a>`,
			"/style.css":      `body{}`,
			"/private/secret": `never`,
		}).ServeHTTP(w, r)
	}))
	const delay = 150 * time.Millisecond
	const ua = "Mozilla/5.0 (compatible; archivectl/0.1; +https://example.com/contact)"
	arch := &fakeArchive{}
	sum, _, err := crawlInto(context.Background(), t, Config{
		Seeds: seedURLs(t, a.URL+"/", b.URL, c.URL+"/"), Delay: delay, Agent: "archivectl", UserAgent: ua,
	}, arch)
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]*crawlertest.Server{"a": a, "b": b, "c": c} {
		checkPolite(t, name, o, delay)
		for _, h := range o.Log() {
			if h.UserAgent != ua {
				t.Errorf("%s: User-Agent %q, want %q", name, h.UserAgent, ua)
			}
		}
	}
	wantPaths := map[string][]string{
		"a": {"/robots.txt", "/", "/usage", "/news", "/style.css", "/sitemap.xml"},   // /private* never requested
		"b": {"/robots.txt", "/", "/open", "/private/x", "/img.png", "/sitemap.xml"}, // 404: everything allowed
		"c": {"/robots.txt"},                                                         // 503: nothing allowed, /sitemap.xml not even queued
	}
	for name, o := range map[string]*crawlertest.Server{"a": a, "b": b, "c": c} {
		got := o.Paths()
		if !slices.Equal(sortedCopy(got), sortedCopy(wantPaths[name])) {
			t.Errorf("%s requested %v, want %v", name, got, wantPaths[name])
		}
	}
	caps := arch.byURL()
	robotsA := caps[a.URL+"/robots.txt"]
	if len(robotsA) != 1 || !robotsA[0].Robots || robotsA[0].Period != embargo.None {
		t.Fatalf("robots.txt of a: %+v, want one capture, never embargoed", robotsA)
	}
	if len(caps[c.URL+"/robots.txt"]) != 1 {
		t.Errorf("the 503 robots.txt of c is not archived")
	}
	for _, p := range []string{"/", "/usage", "/news", "/style.css"} {
		cs := caps[a.URL+p]
		if len(cs) != 1 {
			t.Fatalf("%s: %d captures, want 1", p, len(cs))
		}
		if cs[0].Period != embargo.Quarter {
			t.Errorf("%s: period %v, want a quarter's embargo", p, cs[0].Period)
		}
		if cs[0].RobotsID != robotsA[0].Entry.ID {
			t.Errorf("%s: names robots.txt capture %q, want %s", p, cs[0].RobotsID, robotsA[0].Entry.ID)
		}
		if !slices.Contains(cs[0].Usage, "train-ai=n") || !slices.Equal(cs[0].UsageRobots, []string{"train-ai=n"}) {
			t.Errorf("%s: usage %v from robots %v, want train-ai=n", p, cs[0].Usage, cs[0].UsageRobots)
		}
	}
	if u := caps[a.URL+"/usage"][0]; !slices.Equal(u.UsageHeader, []string{"search=y"}) || !slices.Equal(u.Usage, []string{"search=y", "train-ai=n"}) {
		t.Errorf("/usage: header %v combined %v, want search=y combined with train-ai=n", u.UsageHeader, u.Usage)
	}
	robotsB := caps[b.URL+"/robots.txt"]
	for _, p := range []string{"/", "/private/x"} {
		if cs := caps[b.URL+p]; len(cs) != 1 || cs[0].Period != embargo.None || len(robotsB) != 1 || cs[0].RobotsID != robotsB[0].Entry.ID {
			t.Errorf("b%s: %+v, want one capture without embargo, decided by the 404 robots.txt", p, cs)
		}
	}
	// a's and b's /sitemap.xml answer 404: requested, neither archived nor counted; c's is disallowed, never queued.
	if len(caps[a.URL+"/sitemap.xml"])+len(caps[b.URL+"/sitemap.xml"]) != 0 {
		t.Errorf("a 404 /sitemap.xml is archived")
	}
	if sum.Pages != 8 || sum.Disallowed != 3 || sum.Robots != 3 || sum.Embargoed[embargo.Quarter] != 4 || len(sum.Errors) != 0 {
		t.Errorf("summary %+v, want 8 pages, 3 disallowed, 3 robots.txt, 4 under a quarter's embargo", sum)
	}
}

// TestCrawlDelays checks Crawl-delay (raised delay, ceiling) and Retry-After from the servers' logs.
func TestCrawlDelays(t *testing.T) {
	t.Parallel()
	slow := newOrigin(t, pages(map[string]string{
		"/robots.txt": "User-agent: *\nCrawl-delay: 0.4\n",
		"/":           `<a href="/1">1</a><a href="/2">2</a>`, "/1": "one", "/2": "two",
	}))
	greedy := newOrigin(t, pages(map[string]string{"/robots.txt": "User-agent: *\nCrawl-delay: 100\n", "/": "never"}))
	var busyCount atomic.Int32
	busy := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && busyCount.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		pages(map[string]string{"/robots.txt": "", "/": "ok"}).ServeHTTP(w, r)
	}))
	arch := &fakeArchive{}
	sum, log, err := crawlInto(context.Background(), t, Config{
		Seeds: seedURLs(t, slow.URL, greedy.URL, busy.URL), MaxDelay: 10 * time.Second, Retries: 2,
	}, arch)
	if err != nil {
		t.Fatal(err)
	}
	checkPolite(t, "crawl-delay 0.4", slow, 400*time.Millisecond)
	if got := slow.Paths(); len(got) != 5 || got[0] != "/robots.txt" || !slices.Contains(got, "/sitemap.xml") {
		t.Errorf("crawl-delay origin: requested %v, want robots.txt, 3 pages and /sitemap.xml", got)
	}
	if got := greedy.Paths(); !slices.Equal(got, []string{"/robots.txt"}) {
		t.Errorf("origin over the ceiling: requested %v, want only /robots.txt", got)
	}
	if !strings.Contains(log, `level=WARN msg="origin skipped: its robots.txt Crawl-delay is above the ceiling; raise crawl.max_delay to crawl it" origin=`+greedy.URL) {
		t.Errorf("no log line for the skipped origin:\n%s", log)
	}
	if sum.Skipped != 2 || sum.SkippedOrigins != 1 {
		t.Errorf("summary skipped %d URLs of %d origins, want 2 (its seed and /sitemap.xml) of 1", sum.Skipped, sum.SkippedOrigins)
	}
	hits := busy.Log()
	if len(hits) != 4 || hits[1].Path != "/" || hits[2].Path != "/" || hits[3].Path != "/sitemap.xml" {
		t.Fatalf("Retry-After origin: %v, want robots.txt, / (429), / again, then /sitemap.xml", busy.Paths())
	}
	if d := hits[2].Start.Sub(hits[1].End); d < time.Second {
		t.Errorf("retried %v after a 429 with Retry-After: 1", d)
	}
	if cs := arch.byURL()[busy.URL+"/"]; len(cs) != 1 || cs[0].Entry.Status != 200 {
		t.Errorf("busy origin: %d captures of /, want only the 200", len(cs))
	}
}

// TestCrawlHostile crawls every hostile server: the crawl ends, and each gets a log line.
func TestCrawlHostile(t *testing.T) {
	t.Parallel()
	mux := crawlertest.HostileMux()
	mux.Handle("/robots.txt", crawlertest.HugeRobots(10<<20))
	mux.Handle("/", http.RedirectHandler("/hostile/", http.StatusFound))
	o := newOrigin(t, mux)
	arch := &fakeArchive{}
	start := time.Now()
	_, log, err := crawlInto(context.Background(), t, Config{
		Seeds: seedURLs(t, o.URL+"/"), Timeout: 1500 * time.Millisecond, MaxBody: 1 << 20, Retries: 1, RetryBackoff: 50 * time.Millisecond,
	}, arch)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the crawl took %v:\n%s", d, log)
	}
	checkPolite(t, "hostile", o, 0)
	logs := []struct{ name, want string }{
		{"huge robots.txt", `level=WARN msg="robots.txt larger than the parse limit: truncated"`},
		{"endless body", `level=WARN msg="response truncated" url=` + o.URL + `/hostile/endless reason=length`},
		{"one byte a second", `level=WARN msg="response truncated" url=` + o.URL + `/hostile/slow reason=time`},
		{"huge headers", `url=` + o.URL + `/hostile/headers kind=headers-too-large`},
		{"reset mid-body", `level=WARN msg="fetch failed" url=` + o.URL + `/hostile/reset kind=reset`},
		{"reset retried", `level=INFO msg="retrying after a network error" url=` + o.URL + `/hostile/reset kind=reset`},
		{"gzip bomb", `level=WARN msg="HTML parsing stopped early: links taken from what was parsed" url=` + o.URL + `/hostile/bomb`},
		{"binary garbage", `level=WARN msg="labelled HTML but looks binary: parsed anyway" url=` + o.URL + `/hostile/garbage`},
		{"invalid Last-Modified", `level=INFO msg="Last-Modified is not an HTTP-date: the first capture time counts instead" url=` + o.URL + `/hostile/bad-date`},
		{"future Last-Modified", `level=INFO msg="Last-Modified is in the future: the first capture time counts instead" url=` + o.URL + `/hostile/future-date`},
	}
	for _, l := range logs {
		if !strings.Contains(log, l.want) {
			t.Errorf("%s: no log line %q", l.name, l.want)
		}
	}
	caps := arch.byURL()
	for _, p := range []string{"/hostile/loop/a", "/hostile/loop/b", "/hostile/bomb", "/hostile/garbage", "/hostile/bad-date", "/hostile/future-date", "/hostile/endless", "/hostile/slow"} {
		if n := len(caps[o.URL+p]); n != 1 {
			t.Errorf("%s: %d captures, want 1", p, n)
		}
	}
	if n := strings.Count(strings.Join(o.Paths(), " "), "/hostile/loop/a"); n != 1 {
		t.Errorf("the redirect loop was requested %d times, want once", n)
	}
	for p, want := range map[string]string{"/hostile/endless": "length", "/hostile/slow": "time", "/hostile/garbage": ""} {
		if cs := caps[o.URL+p]; len(cs) == 1 && cs[0].Truncated != want {
			t.Errorf("%s: truncated %q, want %q", p, cs[0].Truncated, want)
		}
	}
	if slices.Contains(o.Paths(), "/private") {
		t.Errorf("a path the huge robots.txt disallows was requested")
	}
}

// TestCrawlInterruptAndResume cancels a crawl mid-way: in-flight pages are sealed and the
// error is ErrInterrupted. The same crawl run again resumes: nothing sealed is fetched again
// and every page ends up sealed exactly once. Run again once finished, it starts afresh.
func TestCrawlInterruptAndResume(t *testing.T) {
	t.Parallel()
	const n = 60
	site := map[string]string{"/robots.txt": "User-agent: *\nDisallow: /private\n"}
	for i := range n {
		site[fmt.Sprintf("/p/%d", i)] = fmt.Sprintf(`<a href="/p/%d">next</a><a href="/p/%d">skip</a><a href="/private/%d">p</a>`, (i+1)%n, (i+7)%n, i)
	}
	site["/"] = `<a href="/p/0">start</a>`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var served atomic.Int32
	o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) == 25 {
			cancel()
		}
		pages(site).ServeHTTP(w, r)
	}))
	arch := &fakeArchive{}
	cfg := Config{DataDir: t.TempDir(), Seeds: seedURLs(t, o.URL+"/")}

	sum, _, err := crawlInto(ctx, t, cfg, arch)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("cancelled crawl: error %v, want ErrInterrupted", err)
	}
	first := arch.byURL()
	firstHits := len(o.Log())
	if len(first) == 0 || len(first) >= n || sum.Pages != len(first)-1 { // robots.txt aside
		t.Fatalf("the cancel left %d URLs sealed, %d pages in the summary; the test needs a crawl cut mid-way", len(first), sum.Pages)
	}
	if firstHits > 25+1 {
		t.Errorf("%d requests after a cancel at the 25th: only the one in flight may finish", firstHits)
	}

	sum, log, err := crawlInto(context.Background(), t, cfg, arch)
	if err != nil {
		t.Fatalf("resumed crawl: %v", err)
	}
	if !strings.Contains(log, "crawl resumed") || sum.Resumed != len(first)-1 {
		t.Errorf("the second run did not resume (%d resumed):\n%s", sum.Resumed, log)
	}
	for _, h := range o.Log()[firstHits:] {
		if h.Path != "/robots.txt" && len(first[o.URL+h.Path]) > 0 {
			t.Errorf("%s was sealed before the cancel and fetched again", h.Path)
		}
	}
	final := arch.byURL()
	for p := range site {
		if got := len(final[o.URL+p]); p != "/robots.txt" && got != 1 {
			t.Errorf("%s: %d captures, want exactly 1", p, got)
		}
	}
	for _, h := range o.Log() {
		if strings.HasPrefix(h.Path, "/private") {
			t.Errorf("disallowed %s requested", h.Path)
		}
	}

	sum, log, err = crawlInto(context.Background(), t, Config{DataDir: cfg.DataDir, Seeds: cfg.Seeds, MaxPages: 5}, arch)
	if err != nil || !strings.Contains(log, "crawl started") || sum.Pages != 5 || sum.Resumed != 0 {
		t.Errorf("third run: %v, %d pages, %d resumed; want a new crawl of 5 pages:\n%s", err, sum.Pages, sum.Resumed, log)
	}
}

// TestResumeAsksTheArchive: a page a killed crawl was sealing counts as done when the archive
// has its capture, and is fetched again when it does not.
func TestResumeAsksTheArchive(t *testing.T) {
	t.Parallel()
	seeds := seedURLs(t, "http://a.example/")
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	cfg := Config{DataDir: t.TempDir(), Seeds: seeds}
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	marks := []urlChange{
		{Item: item{URL: "http://a.example/"}, State: done},
		{Item: item{URL: "http://a.example/landed", Depth: 1}, State: sealing, At: at},
		{Item: item{URL: "http://a.example/lost", Depth: 2}, State: sealing, At: at},
		{Item: item{URL: "http://a.example/next", Depth: 1}, State: pending},
	}
	if err := c.fr.record(marks); err != nil {
		t.Fatal(err)
	}
	c.Close()

	arch := &fakeArchive{}
	arch.Seal(context.Background(), []store.Capture{{URL: "http://a.example/landed", Time: at}, {URL: "http://a.example/lost", Time: at.Add(time.Hour)}})
	c, err = Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pending, err := c.resume(context.Background(), arch)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range pending {
		got = append(got, it.URL)
	}
	if want := []string{"http://a.example/next", "http://a.example/lost"}; !slices.Equal(got, want) {
		t.Errorf("pending %v, want %v (shallowest first)", got, want)
	}
	if p := c.pages.Load(); p != 2 {
		t.Errorf("%d pages counted against the limit, want the done one and the landed one", p)
	}
}
