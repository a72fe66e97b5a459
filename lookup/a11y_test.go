package lookup

import (
	"math"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
)

// axeTags are the rule sets axe-core checks: WCAG 2.0, 2.1 and 2.2 at levels A and AA.
var axeTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"}

// axeSource reads axe-core from the directory test/a11y/install.sh prints, given as
// ARCHIVECTL_AXE_DIR. Without it the test skips, unless CI is set: .ci/run installs it, so there
// its absence is a failure.
func axeSource(t *testing.T) string {
	t.Helper()
	dir := nodeDir(t, "ARCHIVECTL_AXE_DIR", "test/a11y/install.sh", "axe-core is not installed", "to run the accessibility test")
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("ARCHIVECTL_AXE_DIR=%s holds no axe-core (run test/a11y/install.sh): %v", dir, err)
	}
	return string(b)
}

// nodeDir is the directory of npm packages an install script prints, given in the variable env.
// Without it the test skips, saying what is missing and what for, unless CI is set: .ci/run sets
// it, so there its absence is a failure.
func nodeDir(t *testing.T, env, install, missing, purpose string) string {
	t.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set but CI is: .ci/run sets it from %s", env, install)
		}
		t.Skipf("SKIPPED: %s: %s=$(bash %s) %s", missing, env, install, purpose)
	}
	return dir
}

// axeViolation is one rule axe-core found broken, with the elements that break it.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeRun is the script that runs axe-core over the loaded page and returns its violations.
var axeRun = `axe.run(document, {runOnly: {type: "tag", values: ["` + strings.Join(axeTags, `", "`) + `"]}, resultTypes: ["violations"]}).then(function (r) {
  return r.violations.map(function (v) {
    return {id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.map(function (n) { return n.target.join(" ") + ": " + n.failureSummary; })};
  });
})`

// TestAccessibility runs axe-core in headless Chromium over every view of the page, at a
// laptop's width and a phone's (the calendar and some lists change with it): no violation of
// WCAG 2.2 AA, as axe-core checks it. It also checks by hand what axe-core leaves to people:
// one <h1> and a <main>, every date a <time datetime>, and every link and button reachable by
// the keyboard (none taken out of the tab order).
func TestAccessibility(t *testing.T) {
	t.Parallel()
	chromium := testkit.ChromiumPath(t)
	axe := axeSource(t)
	s := standard(t).server(testNow)
	ts := httptest.NewServer(s)
	defer ts.Close()
	rs := newReplaySite(t) // a card with "Open as page" and requisites under embargo
	rts := httptest.NewServer(rs.server(t, Options{}))
	defer rts.Close()
	b := testkit.StartBrowser(t, chromium)
	views := []struct{ name, path string }{
		{"home", "/"},
		{"replay card", rts.URL + "/?url=" + url.QueryEscape(rs.home)},
		{"capture card", "/?url=" + url.QueryEscape("https://www.example.com/a/")},
		{"embargoed card", "/?url=" + url.QueryEscape("https://example.com/tree/p03")},
		{"browse", "/?matchType=prefix&limit=10&url=" + url.QueryEscape("https://example.com/")},
		{"timeline", "/?view=timeline&url=" + url.QueryEscape("https://example.com/a")},
		{"day", "/?day=2026-12-01&limit=3"},
		{"404", "/?url=" + url.QueryEscape("https://example.com/tree/p99/gone.html")},
		{"400", "/?url=ftp://x"},
	}
	const structure = `(function () {
  var untimed = [];
  document.querySelectorAll("main *").forEach(function (e) {
    for (var c = e.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3 && /\b(19|20)\d\d-\d\d-\d\d\b|\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (19|20)\d\d\b/.test(c.data) && !e.closest("time, code, title, svg, a.url, .url, table.headers")) untimed.push(e.tagName + ": " + c.data.trim());
    }
  });
  var untabbable = [];
  document.querySelectorAll("a[href], button, input, summary").forEach(function (e) { if (e.tabIndex < 0) untabbable.push(e.outerHTML.slice(0, 80)); });
  return {h1: document.querySelectorAll("h1").length, main: document.querySelectorAll("main").length,
    times: Array.prototype.filter.call(document.querySelectorAll("time"), function (e) { return !e.getAttribute("datetime"); }).length,
    untimed: untimed, untabbable: untabbable};
})()`
	for _, width := range []int{1280, 390} {
		for _, v := range views {
			at := v.path
			if strings.HasPrefix(at, "/") {
				at = ts.URL + at
			}
			b.Open(at, width, 900)
			var ok bool
			b.Eval(axe+";\ntypeof axe === 'object'", &ok)
			if !ok {
				t.Fatal("axe-core did not load in the page")
			}
			var found []axeViolation
			b.EvalAwait(axeRun, &found)
			for _, f := range found {
				t.Errorf("%s at %d px: %s (%s, %s):\n  %s", v.name, width, f.ID, f.Impact, f.Help, strings.Join(f.Nodes, "\n  "))
			}
			var st struct {
				H1, Main, Times     int
				Untimed, Untabbable []string
			}
			b.Eval(structure, &st)
			if st.H1 != 1 || st.Main != 1 {
				t.Errorf("%s at %d px: %d <h1> and %d <main>, want one each", v.name, width, st.H1, st.Main)
			}
			if st.Times > 0 || len(st.Untimed) > 0 {
				t.Errorf("%s at %d px: %d <time> without datetime; dates outside <time>: %q", v.name, width, st.Times, st.Untimed)
			}
			if len(st.Untabbable) > 0 {
				t.Errorf("%s at %d px: out of the tab order: %q", v.name, width, st.Untabbable)
			}
		}
	}
	t.Logf("%d views at 2 widths checked with axe-core (%s)", len(views), strings.Join(axeTags, ", "))
}

// TestCalendarContrast: every day's numbers in the calendar keep a contrast of at least 4.5:1
// against their square (WCAG 2.2, 1.4.3), days gone by too; axe-core leaves text drawn in SVG
// to people, so this test works the ratios out from the colours the SVG names.
func TestCalendarContrast(t *testing.T) {
	t.Parallel()
	days := []dayCount{{testNow.Truncate(24*time.Hour).AddDate(0, 0, -1), 3}}
	for i := range 30 {
		days = append(days, dayCount{testNow.Truncate(24*time.Hour).AddDate(0, 0, i), 1 + i%9})
	}
	day := regexp.MustCompile(`<(?:g|a href="[^"]*")><title>([^<]*)</title><rect [^>]*fill="(#[0-9a-f]{3,6})"[^>]*/>(.*?)</(?:g|a)>`)
	ink := regexp.MustCompile(`fill="(#[0-9a-f]{3,6})"`)
	for _, wide := range []bool{true, false} {
		svg := calendarSVG(days, testNow, nil, wide)
		groups := day.FindAllStringSubmatch(svg, -1)
		if len(groups) != 7*calWeeks {
			t.Fatalf("%d days found in the calendar, want %d", len(groups), 7*calWeeks)
		}
		for _, g := range groups {
			for _, m := range ink.FindAllStringSubmatch(g[3], -1) {
				if r := contrast(m[1], g[2]); r < 4.5 {
					t.Errorf("%s: text %s on %s has contrast %.2f:1, want 4.5:1 at least", g[1], m[1], g[2], r)
				}
			}
		}
		if r := contrast(strings.TrimSuffix(strings.TrimPrefix(label[strings.Index(label, "fill=")+5:], `"`), `"`), "#fff"); r < 4.5 {
			t.Errorf("labels have contrast %.2f:1 on white", r)
		}
	}
}

// contrast is the WCAG contrast ratio of two colours written #rgb or #rrggbb.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// luminance is the WCAG relative luminance of #rgb or #rrggbb.
func luminance(hex string) float64 {
	hex = strings.TrimPrefix(hex, "#")
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	var ch [3]float64
	for i := range ch {
		v, _ := strconv.ParseUint(hex[2*i:2*i+2], 16, 8)
		c := float64(v) / 255
		if c <= 0.03928 {
			ch[i] = c / 12.92
		} else {
			ch[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*ch[0] + 0.7152*ch[1] + 0.0722*ch[2]
}
