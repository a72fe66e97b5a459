package crawler

import (
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/embargo"
)

// TestCrawlPoliteAndRobots crawls three origins (robots.txt 200, 404 and 503) through the
// binary and checks politeness and robots decisions from the servers' logs, and the embargo
// facts from the sealed records.
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
	data := t.TempDir()
	const delay = 150 * time.Millisecond
	r := wait(t, crawlCmd(t, data, []string{a.URL + "/", b.URL, c.URL + "/"}, "", "--delay", delay.String(), "--agent", "archivectl"))
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.Code, r.Stderr)
	}
	for name, o := range map[string]*testOrigin{"a": a, "b": b, "c": c} {
		checkPolite(t, name, o, delay)
		for _, h := range o.log() {
			if !strings.Contains(h.UserAgent, "archivectl/") || !strings.Contains(h.UserAgent, "+https://example.com/contact") {
				t.Errorf("%s: User-Agent %q lacks the token and contact URL", name, h.UserAgent)
			}
		}
	}
	wantPaths := map[string][]string{
		"a": {"/robots.txt", "/", "/usage", "/news", "/style.css"},   // /private* never requested
		"b": {"/robots.txt", "/", "/open", "/private/x", "/img.png"}, // 404: everything allowed
		"c": {"/robots.txt"},                                         // 503: nothing allowed
	}
	for name, o := range map[string]*testOrigin{"a": a, "b": b, "c": c} {
		got := o.paths()
		if !slices.Equal(sortedCopy(got), sortedCopy(wantPaths[name])) {
			t.Errorf("%s requested %v, want %v", name, got, wantPaths[name])
		}
	}
	caps := byURL(sealed(t, data))
	robotsA := caps[a.URL+"/robots.txt"]
	if len(robotsA) != 1 || !robotsA[0].Entry.Robots || robotsA[0].Entry.Period != embargo.None {
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
		e, f := cs[0].Entry, cs[0].Facts
		if e.Period != embargo.Quarter || !e.ReleaseAt.Equal(e.FirstSeen.Add(embargo.Quarter.Duration())) {
			t.Errorf("%s: period %v release %v first seen %v, want a quarter's embargo", p, e.Period, e.ReleaseAt, e.FirstSeen)
		}
		if f["robots_id"] != robotsA[0].Entry.ID {
			t.Errorf("%s: metadata names robots.txt capture %v, want %s", p, f["robots_id"], robotsA[0].Entry.ID)
		}
		if f["embargo_days"] != float64(90) {
			t.Errorf("%s: metadata embargo_days %v, want 90", p, f["embargo_days"])
		}
		if !slices.Contains(e.Usage, "train-ai=n") || !slices.Equal(e.UsageRobots, []string{"train-ai=n"}) {
			t.Errorf("%s: usage %v from robots %v, want train-ai=n", p, e.Usage, e.UsageRobots)
		}
	}
	if u := caps[a.URL+"/usage"][0].Entry; !slices.Equal(u.UsageHeader, []string{"search=y"}) || !slices.Equal(u.Usage, []string{"search=y", "train-ai=n"}) {
		t.Errorf("/usage: header %v combined %v, want search=y combined with train-ai=n", u.UsageHeader, u.Usage)
	}
	for _, p := range []string{"/", "/private/x"} {
		if cs := caps[b.URL+p]; len(cs) != 1 || cs[0].Entry.Period != embargo.None {
			t.Errorf("b%s: %+v, want one capture without embargo", p, cs)
		}
	}
	for _, want := range []string{"pages        8 ", "disallowed   3", "q(90d)=4"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.Stdout)
		}
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
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
	data := t.TempDir()
	r := wait(t, crawlCmd(t, data, []string{slow.URL, greedy.URL, busy.URL}, "crawl:\n  max_delay: 10s\n", "--delay", "0s"))
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.Code, r.Stderr)
	}
	checkPolite(t, "crawl-delay 0.4", slow, 400*time.Millisecond)
	if got := slow.paths(); len(got) != 4 {
		t.Errorf("crawl-delay origin: requested %v, want robots.txt and 3 pages", got)
	}
	if got := greedy.paths(); !slices.Equal(got, []string{"/robots.txt"}) {
		t.Errorf("origin over the ceiling: requested %v, want only /robots.txt", got)
	}
	if !strings.Contains(r.Stderr, "Crawl-delay is above the ceiling") {
		t.Errorf("no log line for the skipped origin:\n%s", r.Stderr)
	}
	hits := busy.log()
	if len(hits) != 3 || hits[1].Path != "/" || hits[2].Path != "/" {
		t.Fatalf("Retry-After origin: %v, want robots.txt, / (429) and / again", busy.paths())
	}
	if d := hits[2].Start.Sub(hits[1].End); d < time.Second {
		t.Errorf("retried %v after a 429 with Retry-After: 1", d)
	}
	caps := byURL(sealed(t, data))
	if cs := caps[busy.URL+"/"]; len(cs) != 1 || cs[0].Entry.Status != 200 {
		t.Errorf("busy origin: %d captures of /, want only the 200", len(cs))
	}
}

// TestCrawlHostile crawls every hostile server: the crawl ends, each gets a log line, memory stays bounded.
func TestCrawlHostile(t *testing.T) {
	t.Parallel()
	mux := crawlertest.HostileMux()
	mux.Handle("/robots.txt", crawlertest.HugeRobots(10<<20))
	mux.Handle("/", http.RedirectHandler("/hostile/", http.StatusFound))
	o := newOrigin(t, mux)
	data := t.TempDir()
	cfg := "crawl:\n  timeout: 1500ms\n  max_body: 1048576\n  retries: 1\n  retry_backoff: 50ms\n"
	cmd := crawlCmd(t, data, []string{o.URL + "/"}, cfg, "--delay", "0s", "-v")
	start := time.Now()
	r := wait(t, cmd)
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.Code, r.Stderr)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the crawl took %v:\n%s", d, r.Stderr)
	}
	if r.MaxRSS == 0 || r.MaxRSS > 200<<20 {
		t.Errorf("max RSS %d MiB, want under 200 MiB", r.MaxRSS>>20)
	}
	checkPolite(t, "hostile", o, 0)
	logs := []struct{ name, want string }{
		{"huge robots.txt", `msg="robots.txt larger than the parse limit: truncated"`},
		{"endless body", `msg="response truncated" url=` + o.URL + `/hostile/endless reason=length`},
		{"one byte a second", `msg="response truncated" url=` + o.URL + `/hostile/slow reason=time`},
		{"huge headers", `url=` + o.URL + `/hostile/headers kind=headers-too-large`},
		{"reset mid-body", `msg="fetch failed" url=` + o.URL + `/hostile/reset kind=reset`},
		{"reset retried", `msg="retrying after a network error" url=` + o.URL + `/hostile/reset kind=reset`},
		{"gzip bomb", `msg="HTML parsing stopped early: links taken from what was parsed" url=` + o.URL + `/hostile/bomb`},
		{"binary garbage", `msg="labelled HTML but looks binary: parsed anyway" url=` + o.URL + `/hostile/garbage`},
		{"invalid Last-Modified", `msg="Last-Modified is not an HTTP-date: the first capture time counts instead" url=` + o.URL + `/hostile/bad-date`},
		{"future Last-Modified", `msg="Last-Modified is in the future: the first capture time counts instead" url=` + o.URL + `/hostile/future-date`},
	}
	for _, l := range logs {
		if !strings.Contains(r.Stderr, l.want) {
			t.Errorf("%s: no log line %q", l.name, l.want)
		}
	}
	caps := byURL(sealed(t, data))
	for _, p := range []string{"/hostile/loop/a", "/hostile/loop/b", "/hostile/bomb", "/hostile/garbage", "/hostile/bad-date", "/hostile/future-date", "/hostile/endless", "/hostile/slow"} {
		if n := len(caps[o.URL+p]); n != 1 {
			t.Errorf("%s: %d captures, want 1", p, n)
		}
	}
	if n := strings.Count(strings.Join(o.paths(), " "), "/hostile/loop/a"); n != 1 {
		t.Errorf("the redirect loop was requested %d times, want once", n)
	}
	if cs := caps[o.URL+"/hostile/endless"]; len(cs) == 1 && cs[0].Facts["truncated"] != "length" {
		t.Errorf("endless body: truncated %v, want length", cs[0].Facts["truncated"])
	}
	if robots := o.log()[0]; robots.Path != "/robots.txt" {
		t.Errorf("first request %s", robots.Path)
	}
	if slices.Contains(o.paths(), "/private") {
		t.Errorf("a path the huge robots.txt disallows was requested")
	}
}

// TestCrawlResume kills a crawl with SIGKILL mid-way and runs it again: nothing sealed is
// fetched again and every page ends up sealed exactly once.
func TestCrawlResume(t *testing.T) {
	t.Parallel()
	const n = 60
	site := map[string]string{"/robots.txt": "User-agent: *\nDisallow: /private\n"}
	for i := range n {
		site[fmt.Sprintf("/p/%d", i)] = fmt.Sprintf(`<a href="/p/%d">next</a><a href="/p/%d">skip</a><a href="/private/%d">p</a>`, (i+1)%n, (i+7)%n, i)
	}
	site["/"] = `<a href="/p/0">start</a>`
	killAt := make(chan struct{})
	var served atomic.Int32
	o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) == 25 {
			close(killAt)
		}
		pages(site).ServeHTTP(w, r)
	}))
	data := t.TempDir()
	cmd := crawlCmd(t, data, []string{o.URL + "/"}, "", "--delay", "0s")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-killAt:
	case <-time.After(20 * time.Second):
		t.Fatal("the crawl never reached 25 requests")
	}
	cmd.Process.Kill()
	cmd.Wait()

	first := byURL(sealedRecords(t, data, true))
	firstHits := len(o.log())
	if len(first) == 0 || len(first) >= n {
		t.Fatalf("the kill left %d URLs sealed; the test needs a crawl cut mid-way", len(first))
	}
	r := wait(t, crawlCmd(t, data, []string{o.URL + "/"}, "", "--delay", "0s"))
	if r.Code != 0 {
		t.Fatalf("resumed crawl: exit %d\nstderr:\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "crawl resumed") {
		t.Errorf("the second run did not resume:\n%s", r.Stderr)
	}
	for _, h := range o.log()[firstHits:] {
		if h.Path != "/robots.txt" && len(first[o.URL+h.Path]) > 0 {
			t.Errorf("%s was sealed before the kill and fetched again", h.Path)
		}
	}
	final := byURL(sealed(t, data))
	for p := range site {
		if strings.HasPrefix(p, "/robots") {
			continue
		}
		if got := len(final[o.URL+p]); got != 1 {
			t.Errorf("%s: %d captures, want exactly 1", p, got)
		}
	}
	for _, h := range o.log() {
		if strings.HasPrefix(h.Path, "/private") {
			t.Errorf("disallowed %s requested", h.Path)
		}
	}
	// A finished crawl started again is a new crawl: unchanged pages become revisits.
	r = wait(t, crawlCmd(t, data, []string{o.URL + "/"}, "", "--delay", "0s", "--max-pages", "5"))
	if r.Code != 0 || !strings.Contains(r.Stdout, "pages        5 (5 revisits)") {
		t.Errorf("third run: exit %d, summary:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestCrawlInterrupt sends SIGINT mid-crawl: in-flight work is sealed, files are closed, the exit is 1.
func TestCrawlInterrupt(t *testing.T) {
	t.Parallel()
	site := map[string]string{"/robots.txt": ""}
	for i := range 50 {
		site[fmt.Sprintf("/p/%d", i)] = fmt.Sprintf(`<a href="/p/%d">next</a>`, i+1)
	}
	site["/"] = `<a href="/p/0">start</a>`
	third := make(chan struct{})
	var served atomic.Int32
	o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) == 3 {
			close(third)
		}
		pages(site).ServeHTTP(w, r)
	}))
	data := t.TempDir()
	cmd := crawlCmd(t, data, []string{o.URL + "/"}, "", "--delay", "100ms")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-third
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\nstderr:\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "interrupted") || !strings.Contains(out.String(), "pages ") {
		t.Errorf("no summary or no interrupt line:\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	if open, _ := filepathGlob(data + "/sealed/*.open"); len(open) > 0 {
		t.Errorf("WARC files left open: %v", open)
	}
	if n := len(sealed(t, data)); n < 2 || n > 6 {
		t.Errorf("%d captures after an interrupt at the third request", n)
	}
}
