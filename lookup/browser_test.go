package lookup

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
	"golang.org/x/net/html"
)

// headless runs chromium headless with args and returns its stdout.
func headless(t *testing.T, chromium string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--disable-extensions", "--disable-background-networking", "--hide-scrollbars"}
	cmd := testkit.ChromiumCommand(t, ctx, chromium, append(base, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // its helper processes, if any are left
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// TestBrowserSearch loads the page in headless Chromium, fills the search form the way its
// rendered DOM says (GET, action, field name), and checks the result page shows an embargoed
// and a released capture; it saves a screenshot (see testkit.ScreenshotDir).
func TestBrowserSearch(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	s := standard(t).server(testNow)
	ts := httptest.NewServer(s)
	defer ts.Close()

	front := headless(t, chromium, "--dump-dom", ts.URL+"/")
	doc, err := html.Parse(strings.NewReader(front))
	if err != nil {
		t.Fatal(err)
	}
	form := find(doc, func(n *html.Node) bool { return n.Data == "form" && attr(n, "role") == "search" })
	input := find(form, func(n *html.Node) bool { return n.Data == "input" && attr(n, "type") == "text" })
	if form == nil || input == nil || !strings.EqualFold(attr(form, "method"), "get") {
		t.Fatalf("no GET search form with a text box in the rendered page:\n%.2000s", front)
	}
	action, err := url.Parse(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	action = action.ResolveReference(&url.URL{Path: attr(form, "action")})
	action.RawQuery = url.Values{attr(input, "name"): {"http://www.example.com/a/"}}.Encode()

	shot := filepath.Join(testkit.ScreenshotDir(t), "lookup-search.png")
	result := headless(t, chromium, "--dump-dom", "--screenshot="+shot, "--window-size=1100,1500", action.String())
	for _, want := range []string{
		`<span class="badge embargoed">embargoed</span>`, `<span class="badge released">released</span>`,
		`class="countdown">in 89 days 23 hours`, "AI training:", "Release calendar", "<svg",
	} {
		if !strings.Contains(result, want) {
			t.Errorf("the rendered result page lacks %q", want)
		}
	}
	if n := strings.Count(result, "</title><rect"); n != 2*7*calWeeks { // the wide and the tall layout
		t.Errorf("the calendars rendered %d days, want %d", n, 2*7*calWeeks)
	}
	fi, err := os.Stat(shot)
	if err != nil || fi.Size() < 10<<10 {
		t.Fatalf("screenshot %s missing or nearly empty: %v", shot, err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, fi.Size())
}

// find returns the first node under n (depth first) for which ok holds.
func find(n *html.Node, ok func(*html.Node) bool) *html.Node {
	if n == nil {
		return nil
	}
	if n.Type == html.ElementNode && ok(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, ok); f != nil {
			return f
		}
	}
	return nil
}

// attr returns n's attribute key.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
