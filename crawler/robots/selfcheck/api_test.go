package selfcheck

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/crawler/robots"
)

var testNow = time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)

const sample = `# example.com
User-agent: *
Archive-Embargo: 90d
Disallow: /private

User-agent: archive-ctl
Disallow: /

User-agent: archivectl
Archive-Embargo: m
Embargo-Allow: /news
Disallow: /news/live
Disallow: /
Content-Usage: train-ai=n
Content-Usage: /news search=y, train-ai=y
`

func newTestHandler(t *testing.T, opt Options) *httptest.Server {
	t.Helper()
	if opt.Now == nil {
		opt.Now = func() time.Time { return testNow }
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	ts := httptest.NewServer(New(opt).Wrap(http.NotFoundHandler()))
	t.Cleanup(ts.Close)
	return ts
}

// post sends body to the API and decodes a 200 answer into res, returning the status and the raw body.
func post(t *testing.T, ts *httptest.Server, body string, res any) (int, string) {
	t.Helper()
	resp, err := http.Post(ts.URL+APIPath, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK && res != nil {
		if err := json.Unmarshal(b, res); err != nil {
			t.Fatalf("answer %s: %v", b, err)
		}
	}
	return resp.StatusCode, string(b)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestAPIPasted(t *testing.T) {
	t.Parallel()
	ts := newTestHandler(t, Options{})
	var res Response
	code, raw := post(t, ts, `{"robots_txt": `+jsonString(sample)+`, "urls": ["https://example.com/news/a", "/news/live/1", "https://example.com/about", "/robots.txt"], "last_modified": "Sun, 25 Oct 2026 08:00:00 GMT"}`, &res)
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, raw)
	}
	if res.Agent != "archivectl" || !res.Specific || len(res.Groups) != 1 || res.Groups[0].Line != 9 || res.Robots.Bytes != len(sample) {
		t.Errorf("agent %q specific %v groups %+v robots %+v", res.Agent, res.Specific, res.Groups, res.Robots)
	}
	if got := warningCodes(res.Warnings); got != "3 invalid-embargo, 6 agent-near-miss" {
		t.Errorf("file warnings: %s", got)
	}
	news := res.Results[0]
	if !news.Allowed || news.Rule.Line != 11 || news.RuleText != "Embargo-Allow: /news" || news.EmbargoDays == nil || *news.EmbargoDays != 31 {
		t.Errorf("news: %+v", news)
	}
	if news.ReleaseAt == nil || *news.ReleaseAt != "2026-12-03T09:30:00Z" || news.ReleaseAtLastModified == nil || *news.ReleaseAtLastModified != "2026-11-25T08:00:00Z" {
		t.Errorf("news release dates: %v %v", news.ReleaseAt, news.ReleaseAtLastModified)
	}
	if news.Usage["train-ai"] != "allow" || news.Usage["search"] != "allow" || strings.Join(news.Expressions, ",") != "search=y,train-ai=y" {
		t.Errorf("news usage: %v %v", news.Usage, news.Expressions)
	}
	live := res.Results[1]
	if live.Allowed || live.RuleText != "Disallow: /news/live" || live.ReleaseAt != nil || warningCodes(live.Warnings) != "11 embargo-allow-shadowed" {
		t.Errorf("live: %+v", live)
	}
	if about := res.Results[2]; about.Allowed || about.Rule.Line != 13 {
		t.Errorf("about: %+v", about)
	}
	if r := res.Results[3]; !r.Allowed || r.Rule.Kind != robots.KindImplicit || r.RuleText != "" || *r.ReleaseAt != "2026-11-02T09:30:00Z" {
		t.Errorf("robots.txt: %+v", r)
	}
	// The contract fields of `archivectl robots` are there, with the same names.
	for _, k := range []string{`"url":`, `"allowed":`, `"embargo_days":`, `"content_usage":`, `"usage":`, `"rule":`, `"crawl_delay":`, `"robots":`} {
		if !strings.Contains(raw, k) {
			t.Errorf("answer lacks %s", k)
		}
	}
}

func warningCodes(ws []robots.Warning) string {
	var out []string
	for _, w := range ws {
		s := w.Code
		if w.Line > 0 {
			s = strconv.Itoa(w.Line) + " " + s
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func TestAPIErrors(t *testing.T) {
	t.Parallel()
	ts := newTestHandler(t, Options{})
	many := `["/a"` + strings.Repeat(`,"/a"`, MaxURLs) + `]`
	for _, tc := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"not JSON", `robots`, 400, "not a JSON check object"},
		{"unknown field", `{"robot": "x", "urls": ["/"]}`, 400, "unknown field"},
		{"neither", `{"urls": ["/"]}`, 400, "give robots_txt"},
		{"both", `{"robots_txt": "", "origin": "https://example.com", "urls": ["/"]}`, 400, "not both"},
		{"no URL", `{"robots_txt": ""}`, 400, "no URL"},
		{"relative URL", `{"robots_txt": "", "urls": ["news"]}`, 400, "not absolute"},
		{"bad last-modified", `{"robots_txt": "", "urls": ["/"], "last_modified": "yesterday"}`, 400, "HTTP-date"},
		{"too many URLs", `{"robots_txt": "", "urls": ` + many + `}`, 413, "more than 1000"},
		{"robots.txt too large", `{"robots_txt": "` + strings.Repeat("#", MaxRobotsBytes+1) + `", "urls": ["/"]}`, 413, "more than the 512000"},
		{"request too large", `{"robots_txt": "` + strings.Repeat("#", maxRequestBytes) + `"}`, 413, "larger than"},
		{"long URL", `{"robots_txt": "", "urls": ["/` + strings.Repeat("a", MaxURLBytes) + `"]}`, 413, "more than 4096"},
		{"private origin", `{"origin": "http://127.0.0.1:1", "urls": ["/"]}`, 400, "not a public address"},
		{"origin with a user", `{"origin": "https://u@example.com", "urls": ["/"]}`, 400, "user name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, body := post(t, ts, tc.body, nil)
			if code != tc.code || !strings.Contains(body, tc.want) {
				t.Errorf("status %d %s, want %d with %q", code, body, tc.code, tc.want)
			}
		})
	}
	resp, err := http.Get(ts.URL + APIPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET %s: %d, Allow %q", APIPath, resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// TestAPIFetch fetches a loopback origin's robots.txt (allowed by configuration here) once per
// minute, refuses URLs of other origins, and limits the fetch rate.
func TestAPIFetch(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" || r.Header.Get("If-None-Match") != "" {
			t.Errorf("unexpected request %s %v", r.URL, r.Header)
		}
		hits.Add(1)
		w.Header().Set("ETag", `"1"`)
		io.WriteString(w, sample)
	}))
	defer origin.Close()
	ts := newTestHandler(t, Options{AllowPrivate: true, FetchBurst: 3, FetchRate: 0.001})
	body := `{"origin": ` + jsonString(origin.URL) + `, "urls": ["/news/a", ` + jsonString(origin.URL+"/private") + `], "agent": "otherbot"}`
	var res Response
	if code, raw := post(t, ts, body, &res); code != http.StatusOK {
		t.Fatalf("status %d: %s", code, raw)
	}
	if res.Robots.URL != origin.URL+"/robots.txt" || res.Robots.Status != 200 || res.Robots.Availability != "available" || res.Robots.Bytes != len(sample) {
		t.Errorf("robots: %+v", res.Robots)
	}
	if res.Specific || res.Results[0].Allowed != true || res.Results[0].EmbargoDays != nil || res.Results[1].Allowed || res.Results[1].RuleText != "Disallow: /private" {
		t.Errorf("results: %+v", res.Results)
	}
	if res.Results[0].URL != "/news/a" || res.Results[0].Robots.URL != origin.URL+"/robots.txt" {
		t.Errorf("bare path result: %+v", res.Results[0])
	}
	if code, _ := post(t, ts, body, nil); code != http.StatusOK || hits.Load() != 1 {
		t.Errorf("second check: status %d, %d fetches, want one", code, hits.Load())
	}
	if code, raw := post(t, ts, `{"origin": `+jsonString(origin.URL)+`, "urls": ["https://example.com/"]}`, nil); code != 400 || !strings.Contains(raw, "is not on") {
		t.Errorf("URL of another origin: %d %s", code, raw)
	}
	code, raw := post(t, ts, body, nil)
	if code != http.StatusTooManyRequests || !strings.Contains(raw, "too many robots.txt fetches") {
		t.Errorf("fourth check: %d %s, want 429", code, raw)
	}
}

// TestRefusesPrivate checks the dial-time guard: a name that a check lets pass is still not
// dialled when it leads to a non-public address.
func TestRefusesPrivate(t *testing.T) {
	t.Parallel()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the guard let a request through: %s", r.URL)
	}))
	defer origin.Close()
	_, err := newClient(time.Second, false).Get(origin.URL + "/robots.txt")
	if !errors.Is(err, ErrNotPublic) {
		t.Errorf("fetch from loopback: %v, want ErrNotPublic", err)
	}
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"93.184.215.14", true}, {"2606:2800:21f:cb07:6820:80da:af6b:8b2c", true},
		{"127.0.0.1", false}, {"10.1.2.3", false}, {"172.16.0.1", false}, {"192.168.1.1", false},
		{"169.254.169.254", false}, {"100.64.0.1", false}, {"0.0.0.0", false}, {"::1", false},
		{"::ffff:127.0.0.1", false}, {"fd00::1", false}, {"fe80::1", false}, {"64:ff9b::a00:1", false},
		{"224.0.0.1", false}, {"198.18.0.1", false}, {"240.0.0.1", false},
	} {
		if got := public(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("public(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
	if err := checkHost(context.Background(), "localhost"); !errors.Is(err, ErrNotPublic) {
		t.Errorf("checkHost(localhost) = %v", err)
	}
}

// TestWarningsBounded: a file of thousands of mistakes answers the first hundred and a count.
func TestWarningsBounded(t *testing.T) {
	t.Parallel()
	ts := newTestHandler(t, Options{})
	body := "User-agent: *\n" + strings.Repeat("Archive-Embargo: 90d\n", 5000)
	var res Response
	if code, raw := post(t, ts, `{"robots_txt": `+jsonString(body)+`, "urls": ["/"]}`, &res); code != 200 {
		t.Fatalf("%d %.200s", code, raw)
	}
	if len(res.Warnings) != MaxWarnings || res.Omitted != 5001-MaxWarnings {
		t.Errorf("%d warnings, %d omitted", len(res.Warnings), res.Omitted)
	}
}

func TestNoFetch(t *testing.T) {
	t.Parallel()
	ts := newTestHandler(t, Options{NoFetch: true})
	if code, raw := post(t, ts, `{"origin": "https://example.com", "urls": ["/"]}`, nil); code != 400 || !strings.Contains(raw, "pasted robots.txt files only") {
		t.Errorf("origin with fetching off: %d %s", code, raw)
	}
}

// TestTimeLimit checks that a check that cannot finish in time answers 413 and says how far it got.
func TestTimeLimit(t *testing.T) {
	t.Parallel()
	// Every URL is tried against some 30,000 wildcard rules that all fail at the end of the path.
	body := "User-agent: *\n" + strings.Repeat("Disallow: /*zq\n", 30000)
	urls := make([]string, MaxURLs)
	for i := range urls {
		urls[i] = "/" + strings.Repeat("a", 2000)
	}
	req, _ := json.Marshal(Request{RobotsTxt: &body, URLs: urls})
	ts := newTestHandler(t, Options{TimeLimit: 200 * time.Millisecond})
	code, raw := post(t, ts, string(req), nil)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(raw, "check fewer URLs") {
		t.Errorf("status %d %.200s, want 413", code, raw)
	}
}

func TestPageForm(t *testing.T) {
	t.Parallel()
	ts := newTestHandler(t, Options{})
	resp, err := http.Get(ts.URL + PagePath)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `<form class="check" method="post" action="/check">`) || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "style-src 'self'") {
		t.Fatalf("GET /check: %d %s", resp.StatusCode, b)
	}
	form := url.Values{"source": {"paste"}, "robots_txt": {sample}, "urls": {"https://example.com/news/a\r\n\r\n/news/live/x\r\n"}, "agent": {"archivectl"}}
	resp, err = http.PostForm(ts.URL+PagePath, form)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(b)
	for _, want := range []string{"2 URLs checked for <code>archivectl</code>", "Embargo-Allow: /news", "31 days", "2026-12-03T09:30:00Z", "invalid-embargo", "agent-near-miss", "the longer Disallow on line 12", "AI training: <span class=\"allowed\">allowed</span>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	resp, err = http.PostForm(ts.URL+PagePath, url.Values{"source": {"paste"}, "urls": {"news"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), `role="alert"`) {
		t.Errorf("a bad form: %d", resp.StatusCode)
	}
}
