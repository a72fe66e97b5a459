package demoweb

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// client talks to the demo site without following redirects.
var client = &http.Client{
	Timeout:       10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// ticking returns a clock that advances one millisecond per reading, from t0.
func ticking(t0 time.Time) func() time.Time {
	var n atomic.Int64
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

// start runs a site for one test.
func start(t *testing.T, o Options) *Site {
	t.Helper()
	s, err := StartWith(o)
	if err != nil {
		t.Fatalf("StartWith: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// get fetches origin+path and returns the response with its body read.
func get(t *testing.T, s *Site, origin, path string) (*http.Response, string) {
	t.Helper()
	o, ok := s.Origin(origin)
	if !ok {
		t.Fatalf("no origin %q", origin)
	}
	resp, err := client.Get(o.URL + path)
	if err != nil {
		t.Fatalf("GET %s%s: %v", origin, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s%s: %v", origin, path, err)
	}
	return resp, string(b)
}

func TestOrigins(t *testing.T) {
	t.Parallel()
	s := start(t, Options{})
	want := []string{"aipref", "blog", "invalid", "monthly", "quarterly", "unavailable", "weekly"}
	var names []string
	ports := map[string]bool{}
	for _, o := range s.Origins {
		names = append(names, o.Name)
		u, err := url.Parse(o.URL)
		if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" || u.Path != "" {
			t.Errorf("origin %s has URL %q, want http://127.0.0.1:PORT", o.Name, o.URL)
		}
		if ports[u.Port()] {
			t.Errorf("origin %s shares port %s", o.Name, u.Port())
		}
		ports[u.Port()] = true
		if o.Policy == "" {
			t.Errorf("origin %s has no policy text", o.Name)
		}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("origins = %q, want %q", names, want)
	}
	seeds := s.Seeds()
	if len(seeds) != len(s.Origins) {
		t.Fatalf("Seeds() has %d URLs for %d origins", len(seeds), len(s.Origins))
	}
	for i, seed := range seeds {
		if resp, _ := get(t, s, s.Origins[i].Name, s.Origins[i].Home); resp.StatusCode != http.StatusOK || seed != s.Origins[i].URL+s.Origins[i].Home {
			t.Errorf("seed %s: status %d", seed, resp.StatusCode)
		}
	}
	if m, _ := s.Origin("monthly"); !strings.HasSuffix(m.URL+m.Home, "/news/") {
		t.Errorf("monthly home = %q, want /news/ (Disallow: / covers /)", m.Home)
	}
}

// TestRobotsPolicies checks each origin's robots.txt is served as its policy says.
func TestRobotsPolicies(t *testing.T) {
	t.Parallel()
	s := start(t, Options{})
	tests := []struct {
		origin      string
		status      int
		lines       []string
		embargoDays int
	}{
		{"blog", http.StatusNotFound, nil, 0},
		{"weekly", http.StatusOK, []string{"User-agent: *", "Archive-Embargo: w", "Disallow: /subscribers/"}, 7},
		{"monthly", http.StatusOK, []string{"User-Agent: *", "Archive-Embargo: m", "Embargo-Allow: /news", "Disallow: /"}, 31},
		{"quarterly", http.StatusOK, []string{"Archive-Embargo: q", "Disallow: /cart"}, 90},
		{"invalid", http.StatusOK, []string{"Archive-Embargo: 90d", "Disallow: /admin/"}, 0},
		{"unavailable", http.StatusServiceUnavailable, nil, 0},
		{"aipref", http.StatusOK, []string{"Disallow: /private/", "Content-Usage: train-ai=n", "Content-Usage: /open/ train-ai=y, search=y", "Content-Usage: /essays/ search=y"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.origin, func(t *testing.T) {
			t.Parallel()
			resp, body := get(t, s, tc.origin, "/robots.txt")
			if resp.StatusCode != tc.status {
				t.Fatalf("robots.txt status = %d, want %d", resp.StatusCode, tc.status)
			}
			lines := strings.Split(body, "\n")
			for _, l := range tc.lines {
				if !slices.Contains(lines, l) {
					t.Errorf("robots.txt lacks the line %q:\n%s", l, body)
				}
			}
			if o, _ := s.Origin(tc.origin); o.EmbargoDays != tc.embargoDays {
				t.Errorf("EmbargoDays = %d, want %d", o.EmbargoDays, tc.embargoDays)
			}
		})
	}
}

// TestHeaders checks the per-page fields of origin.json, relative dates included.
func TestHeaders(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, time.November, 29, 12, 0, 0, 0, time.UTC)
	s := start(t, Options{Now: func() time.Time { return t0 }})
	tests := []struct {
		name, origin, path, field string
		want                      []string // nil: the field is absent
	}{
		{"old Last-Modified", "weekly", "/news/storm-damage.html", "Last-Modified", []string{"Tue, 12 Mar 2019 09:00:00 GMT"}},
		{"relative Last-Modified", "weekly", "/news/council-vote.html", "Last-Modified", []string{"Thu, 26 Nov 2026 12:00:00 GMT"}},
		{"missing Last-Modified", "weekly", "/news/ferry-timetable.html", "Last-Modified", nil},
		{"future Last-Modified", "quarterly", "/sale.html", "Last-Modified", []string{"Fri, 01 Jan 2100 00:00:00 GMT"}},
		{"monthly letters due before the first month ends", "monthly", "/news/letters.html", "Last-Modified", []string{"Wed, 04 Nov 2026 12:00:00 GMT"}},
		{"one Content-Usage line", "aipref", "/open/climate-data.html", "Content-Usage", []string{"train-ai=n"}},
		{"two Content-Usage lines", "aipref", "/catalogue.html", "Content-Usage", []string{"train-ai=y", "search=n"}},
		{"invalid Content-Usage", "aipref", "/open/maps.html", "Content-Usage", []string{"Train-AI=y"}},
		{"no Content-Usage", "aipref", "/", "Content-Usage", nil},
		{"Retry-After on the 503", "unavailable", "/robots.txt", "Retry-After", []string{"3600"}},
		{"HTML type", "blog", "/", "Content-Type", []string{"text/html; charset=utf-8"}},
		{"CSS type", "blog", "/style.css", "Content-Type", []string{"text/css; charset=utf-8"}},
		{"image type", "monthly", "/news/img/logo.svg", "Content-Type", []string{"image/svg+xml"}},
		{"robots.txt type", "weekly", "/robots.txt", "Content-Type", []string{"text/plain; charset=utf-8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, _ := get(t, s, tc.origin, tc.path)
			if got := resp.Header.Values(tc.field); !slices.Equal(got, tc.want) {
				t.Errorf("%s%s %s = %q, want %q", tc.origin, tc.path, tc.field, got, tc.want)
			}
		})
	}
}

// links finds the href and src targets of a page.
var links = regexp.MustCompile(`(?:href|src)="([^"]+)"`)

// TestSiteShape checks every origin: a home page linking to 3–6 pages and to its disallowed
// path, a CSS and an image requisite, no broken local link, one unique marker per file.
func TestSiteShape(t *testing.T) {
	t.Parallel()
	s := start(t, Options{})
	disallowedLink := map[string]string{
		"weekly": "/subscribers/crossword.html", "monthly": "/about.html", "quarterly": "/cart.html",
		"invalid": "/admin/login.html", "unavailable": "/staff/rota.html", "aipref": "/private/staff.html",
		"blog": "/drafts/winter-plans.html", // no robots.txt: nothing is disallowed, the draft is public
	}
	served := map[string]Page{}
	markers := map[string]string{}
	for _, p := range s.Pages() {
		served[p.URL] = p
		if p.Marker == "" && !strings.HasSuffix(p.Path, "/robots.txt") {
			t.Errorf("%s has no body marker", p.URL)
		}
		if p.Marker != "" && !strings.HasPrefix(p.Marker, "BODY-MARKER-"+p.Origin+"-") {
			t.Errorf("%s has marker %q, not of its origin", p.URL, p.Marker)
		}
		if other, dup := markers[p.Marker]; dup && p.Marker != "" {
			t.Errorf("%s and %s share the marker %s", p.URL, other, p.Marker)
		}
		markers[p.Marker] = p.URL
	}
	for _, o := range s.Origins {
		t.Run(o.Name, func(t *testing.T) {
			_, home := get(t, s, o.Name, o.Home)
			base, _ := url.Parse(o.URL + o.Home)
			var pages, requisites []string
			for _, m := range links.FindAllStringSubmatch(home, -1) {
				u, err := base.Parse(m[1])
				if err != nil {
					t.Fatalf("home links to %q: %v", m[1], err)
				}
				switch {
				case strings.HasSuffix(u.Path, ".css"), strings.HasSuffix(u.Path, ".svg"):
					requisites = append(requisites, u.Path)
				case strings.HasSuffix(u.Path, ".html") && !slices.Contains(pages, u.Path):
					pages = append(pages, u.Path)
				}
			}
			if len(pages) < 3 || len(pages) > 6 {
				t.Errorf("home links to %d pages %q, want 3 to 6", len(pages), pages)
			}
			if len(requisites) < 2 {
				t.Errorf("home has requisites %q, want a stylesheet and an image", requisites)
			}
			if !slices.Contains(pages, disallowedLink[o.Name]) {
				t.Errorf("home does not link to %s", disallowedLink[o.Name])
			}
			for _, p := range s.Pages() {
				if p.Origin != o.Name || !strings.HasSuffix(p.Path, ".html") && !strings.HasSuffix(p.Path, "/") {
					continue
				}
				_, body := get(t, s, o.Name, p.Path)
				if !strings.Contains(body, p.Marker) {
					t.Errorf("%s body lacks its marker %s", p.URL, p.Marker)
				}
				pb, _ := url.Parse(p.URL)
				for _, m := range links.FindAllStringSubmatch(body, -1) {
					u, _ := pb.Parse(m[1])
					if _, ok := served[u.String()]; !ok {
						t.Errorf("%s links to %s, which the site does not serve", p.URL, u)
					}
				}
			}
		})
	}
}

// TestServing checks the HTTP edges: directories, the manifest, methods, traversal.
func TestServing(t *testing.T) {
	t.Parallel()
	s := start(t, Options{})
	o, _ := s.Origin("monthly")
	tests := []struct {
		name, method, path string
		status             int
		location           string
	}{
		{"directory without slash redirects", http.MethodGet, "/news", http.StatusMovedPermanently, "/news/"},
		{"directory index", http.MethodGet, "/news/", http.StatusOK, ""},
		{"explicit index file", http.MethodGet, "/news/index.html", http.StatusOK, ""},
		{"query ignored", http.MethodGet, "/news/letters.html?page=2", http.StatusOK, ""},
		{"manifest not served", http.MethodGet, "/origin.json", http.StatusNotFound, ""},
		{"missing page", http.MethodGet, "/news/nothing.html", http.StatusNotFound, ""},
		{"dot-dot stays inside", http.MethodGet, "/news/../../weekly/index.html", http.StatusNotFound, ""},
		{"HEAD", http.MethodHead, "/news/letters.html", http.StatusOK, ""},
		{"POST refused", http.MethodPost, "/news/", http.StatusMethodNotAllowed, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, _ := http.NewRequest(tc.method, o.URL+tc.path, nil)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.method, tc.path, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
				t.Errorf("%s %s = %d Location %q, want %d %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Location"), tc.status, tc.location)
			}
			if tc.method == http.MethodHead && (len(body) != 0 || resp.ContentLength <= 0) {
				t.Errorf("HEAD: body %d bytes, Content-Length %d; want none and the page's length", len(body), resp.ContentLength)
			}
		})
	}
}

// TestRequestLog checks the server's own log: fields, order, and overlap detection.
func TestRequestLog(t *testing.T) {
	t.Parallel()
	arrived := make(chan string, 2)
	release := make(chan struct{})
	var holding atomic.Bool
	s := start(t, Options{Now: ticking(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), hold: func(path string) {
		if holding.Load() {
			arrived <- path
			<-release
		}
	}})

	blog, _ := s.Origin("blog")
	req, _ := http.NewRequest(http.MethodGet, blog.URL+"/posts/hedgerows.html?x=1", nil)
	req.Header.Set("User-Agent", "archivectl-test/1")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	get(t, s, "blog", "/robots.txt")
	log := s.Requests()
	want := []Request{
		{Origin: "blog", Method: "GET", Path: "/posts/hedgerows.html?x=1", UserAgent: "archivectl-test/1", Status: 200},
		{Origin: "blog", Method: "GET", Path: "/robots.txt", UserAgent: "Go-http-client/1.1", Status: 404},
	}
	if len(log) != len(want) {
		t.Fatalf("log has %d requests, want %d: %+v", len(log), len(want), log)
	}
	for i, r := range log {
		if !r.Start.Before(r.End) {
			t.Errorf("request %d: start %v not before end %v", i, r.Start, r.End)
		}
		r.Start, r.End = time.Time{}, time.Time{}
		if r != want[i] {
			t.Errorf("request %d = %+v, want %+v", i, r, want[i])
		}
	}
	if got := MaxInFlight(log); got != 1 {
		t.Errorf("sequential requests: MaxInFlight = %d, want 1", got)
	}

	// Two requests held inside the server at once must show as overlapping.
	holding.Store(true)
	var wg sync.WaitGroup
	for _, p := range []string{"/", "/about.html"} {
		wg.Go(func() {
			if resp, err := client.Get(blog.URL + p); err == nil {
				resp.Body.Close()
			}
		})
	}
	<-arrived
	<-arrived
	if got := MaxInFlight(s.Requests()); got != 2 {
		t.Errorf("while both are held: MaxInFlight = %d, want 2 (in-progress requests count)", got)
	}
	close(release)
	wg.Wait()
	if got := MaxInFlight(s.Requests()); got != 2 {
		t.Errorf("concurrent requests: MaxInFlight = %d, want 2", got)
	}
}

func TestMaxInFlight(t *testing.T) {
	t.Parallel()
	at := func(ms int) time.Time {
		return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
	}
	tests := []struct {
		name string
		reqs []Request
		want int
	}{
		{"none", nil, 0},
		{"one", []Request{{Start: at(0), End: at(5)}}, 1},
		{"apart", []Request{{Start: at(0), End: at(5)}, {Start: at(10), End: at(15)}}, 1},
		{"touching", []Request{{Start: at(0), End: at(5)}, {Start: at(5), End: at(9)}}, 1},
		{"overlapping", []Request{{Start: at(0), End: at(5)}, {Start: at(4), End: at(9)}}, 2},
		{"nested three", []Request{{Start: at(0), End: at(20)}, {Start: at(1), End: at(10)}, {Start: at(2), End: at(3)}}, 3},
		{"unordered input", []Request{{Start: at(10), End: at(15)}, {Start: at(0), End: at(12)}}, 2},
		{"in progress stays open", []Request{{Start: at(0)}, {Start: at(100), End: at(101)}}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := MaxInFlight(tc.reqs); got != tc.want {
				t.Errorf("MaxInFlight = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestClose checks that Close stops every origin and may be called twice.
func TestClose(t *testing.T) {
	t.Parallel()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	seeds := s.Seeds()
	s.Close()
	s.Close()
	for _, seed := range seeds {
		if resp, err := client.Get(seed); err == nil {
			resp.Body.Close()
			t.Errorf("GET %s after Close answered %d", seed, resp.StatusCode)
		}
	}
}
