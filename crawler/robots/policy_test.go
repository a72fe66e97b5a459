package robots

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestCrawlDelayAndSitemaps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, path string
		allowed          bool
		delay            time.Duration
		sitemaps         []string
	}{
		{"T186 delay from the * group", "User-agent: *\nCrawl-delay: 10\nDisallow: /x\n", "/y", true, 10 * time.Second, nil},
		{"T187 own group has no delay", "User-agent: archivectl\nDisallow:\n\nUser-agent: *\nCrawl-delay: 10\n", "/y", true, 0, nil},
		{"T188 decimal seconds", "User-agent: *\nCrawl-delay: 2.5\n", "/y", true, 2500 * time.Millisecond, nil},
		{"T189 invalid value ignored", "User-agent: *\nCrawl-delay: soon\n", "/y", true, 0, nil},
		{"T190 outside any group ignored", "Crawl-delay: 5\nUser-agent: *\nDisallow:\n", "/y", true, 0, nil},
		{"T191 sitemaps in file order", "Sitemap: https://a.example/s1.xml\nUser-agent: *\nDisallow: /\nSitemap: https://b.example/s2.xml\n", "/x", false, 0,
			[]string{"https://a.example/s1.xml", "https://b.example/s2.xml"}},
		{"largest valid delay wins", "User-agent: *\nCrawl-delay: 3\nCrawl-delay: -4\nCrawl-delay: 7\nCrawl-delay: 1\n", "/", true, 7 * time.Second, nil},
		{"delay in a shared group (T98)", "User-agent: archivectl\nCrawl-delay: 5\nUser-agent: *\nDisallow: /\n", "/x", false, 5 * time.Second, nil},
		{"delays of merged groups", "User-agent: archivectl\nCrawl-delay: 5\nAllow: /\nUser-agent: b\nDisallow: /\nUser-agent: archivectl\nCrawl-delay: 6\n", "/x", true, 6 * time.Second, nil},
		{"sitemap typo and no group end", "User-agent: a\nSite-map: https://s.example/x\nUser-agent: archivectl\nDisallow: /\n", "/x", false, 0, []string{"https://s.example/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := NewPolicy([]byte(tc.body))
			d := p.Evaluate("archivectl", tc.path)
			if d.Allowed != tc.allowed || d.CrawlDelay != tc.delay {
				t.Errorf("allowed, delay = %v, %v; want %v, %v", d.Allowed, d.CrawlDelay, tc.allowed, tc.delay)
			}
			if !equalStrings(p.Sitemaps(), tc.sitemaps) {
				t.Errorf("sitemaps = %q, want %q", p.Sitemaps(), tc.sitemaps)
			}
		})
	}
}

func TestParseDelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"10", 10 * time.Second, true},
		{"0.25", 250 * time.Millisecond, true},
		{".5", 500 * time.Millisecond, true},
		{"5.", 5 * time.Second, true},
		{"", 0, false},
		{".", 0, false},
		{"-1", 0, false},
		{"1e3", 0, false},
		{"1.2.3", 0, false},
		{"inf", 0, false},
		{"99999999999999999999", time.Duration(1<<63 - 1), true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, ok := parseDelay(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("parseDelay(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestDecisionRule(t *testing.T) {
	t.Parallel()
	body := "User-agent: *\nArchive-Embargo: m\nEmbargo-Allow: /news\nAllow: /news\nDisallow: /\nDisallow: /x$\n"
	p := NewPolicy([]byte(body))
	tests := []struct {
		path string
		want Rule
	}{
		{"/news/a", Rule{Line: 3, Kind: "embargo-allow", Pattern: "/news"}}, // first of the tied allow-type rules
		{"/a", Rule{Line: 5, Kind: "disallow", Pattern: "/"}},
		{"/x", Rule{Line: 6, Kind: "disallow", Pattern: "/x$"}},
		{"/robots.txt", Rule{Kind: KindImplicit}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			if got := p.Evaluate("archivectl", tc.path).Rule; got != tc.want {
				t.Errorf("rule = %+v, want %+v", got, tc.want)
			}
		})
	}
	if got := NewPolicy(nil).Evaluate("a", "/x").Rule; got != (Rule{Kind: KindImplicit}) {
		t.Errorf("empty file: rule = %+v, want implicit", got)
	}
	if got, want := (Rule{Line: 12, Kind: "embargo-allow", Pattern: "/news"}).String(), "12 embargo-allow /news"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestAgents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, agent string
		allowed           bool
	}{
		{"star with words is global", "User-agent: * foo\nDisallow: /\n", "archivectl", false},
		{"star prefix yields empty token", "User-agent: *bot\nDisallow: /\n", "archivectl", true},
		{"empty value still forms a group", "User-agent:\nUser-agent: archivectl\nDisallow: /\n", "archivectl", false},
		{"digits end the token (docs/rules.md#d5)", "User-agent: archivectl2\nDisallow: /\n", "archivectl", false},
		{"typo useragent", "useragent: archivectl\nDisallow: /\n", "archivectl", false},
		{"typo user agent", "user agent: archivectl\nDisallow: /\n", "archivectl", false},
		{"missing colon (docs/rules.md#d20)", "User-agent archivectl\nDisallow /\n", "archivectl", false},
		{"missing colon, three words ignored", "User-agent archivectl\nDisallow / x\n", "archivectl", true},
		{"prefix keys are not matched", "User-agent: *\nDisallowed: /\n", "archivectl", true},
		{"Allowance is not allow", "User-agent: *\nDisallow: /\nAllowance: /\n", "archivectl", false},
		{"typo dissallow", "User-agent: *\ndissallow: /\n", "archivectl", false},
		{"empty agent matches no specific group", "User-agent: a\nDisallow: /\n", "", true},
		{"specific and star in one group", "User-agent: a\nUser-agent: *\nDisallow: /\nUser-agent: archivectl\nAllow: /\n", "a", false},
		{"unknown line between agents", "User-agent: archivectl\nFoo: bar\nUser-agent: b\nDisallow: /\n", "archivectl", false},
		{"invalid archive-embargo still a rule (docs/rules.md#d1)", "User-agent: archivectl\nArchive-Embargo: x\nUser-agent: b\nDisallow: /\n", "archivectl", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := NewPolicy([]byte(tc.body)).Evaluate(tc.agent, "/x").Allowed; got != tc.allowed {
				t.Errorf("allowed = %v, want %v", got, tc.allowed)
			}
		})
	}
}

func TestValidAgent(t *testing.T) {
	t.Parallel()
	for tok, want := range map[string]bool{
		"archivectl": true, "Example_Bot-x": true, "": false, "bot1": false, "a b": false, "*": false, "bot/1.0": false, "é": false,
	} {
		if got := ValidAgent(tok); got != want {
			t.Errorf("ValidAgent(%q) = %v, want %v", tok, got, want)
		}
	}
}

func TestSizeLimit(t *testing.T) {
	t.Parallel()
	head := "User-agent: *\n"
	fill := func(n int) string { return "#" + strings.Repeat("x", n-2) + "\n" }
	tests := []struct {
		name, body string
		disallowed bool // "/late"
	}{
		{"rule ends exactly at the limit", head + fill(MaxBytes-len(head)-len("Disallow: /late\n")) + "Disallow: /late\n" + "more", true},
		{"rule ends at the limit without its newline", head + fill(MaxBytes-len(head)-len("Disallow: /late")) + "Disallow: /late\n", true},
		{"rule ends at the limit with CRLF cut", head + fill(MaxBytes-len(head)-len("Disallow: /late\r")) + "Disallow: /late\r\n", true},
		{"rule cut by the limit", head + fill(MaxBytes-len(head)-len("Disallow: /lat")) + "Disallow: /late\n", false},
		{"a single line longer than the limit", "User-agent: * " + strings.Repeat(" ", MaxBytes) + "\nDisallow: /late\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := !NewPolicy([]byte(tc.body)).Evaluate("a", "/late").Allowed; got != tc.disallowed {
				t.Errorf("disallowed = %v, want %v", got, tc.disallowed)
			}
		})
	}
}

func TestSelectionCacheConcurrent(t *testing.T) {
	t.Parallel()
	p := NewPolicy([]byte("User-agent: a\nDisallow: /a\nUser-agent: b\nDisallow: /b\n"))
	done := make(chan bool)
	for i := 0; i < 8; i++ {
		go func() {
			ok := true
			for j := 0; j < 200; j++ {
				agent := []string{"a", "B", "c"}[(i+j)%3]
				want := agent != "a"
				ok = ok && p.Evaluate(agent, "/a").Allowed == want
			}
			done <- ok
		}()
	}
	for i := 0; i < 8; i++ {
		if !<-done {
			t.Error("a concurrent evaluation gave a wrong answer")
		}
	}
}

// TestEvaluateManyRules checks the indexed evaluation of large groups against a plain scan of
// every rule in file order.
func TestEvaluateManyRules(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 7))
	atoms := []string{"/", "a", "b", "ab", "*", "%61", "$", "?", "x=1", "ツ", "/a", "/b"}
	gen := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(atoms[r.IntN(len(atoms))])
		}
		return b.String()
	}
	for round := 0; round < 20; round++ {
		var body strings.Builder
		body.WriteString("User-agent: *\nArchive-Embargo: w\n")
		type line struct {
			kind, pat string
			n         int
		}
		var rules []line
		for i := 0; i < 40+r.IntN(60); i++ {
			kind := []string{"allow", "disallow", "embargo-allow"}[r.IntN(3)]
			pat := gen(1 + r.IntN(4))
			if r.IntN(2) == 0 {
				pat = "/" + pat
			}
			fmt.Fprintf(&body, "%s: %s\n", kind, pat)
			rules = append(rules, line{kind, pat, 3 + i})
		}
		p := NewPolicy([]byte(body.String()))
		for i := 0; i < 200; i++ {
			path := "/" + strings.ReplaceAll(gen(1+r.IntN(5)), "$", "")
			np := normalize(path, false)
			var want *line
			wantLen := -1
			for j := range rules {
				l := &rules[j]
				pat := compilePattern(l.pat)
				if !pat.match(np) || int(pat.length) < wantLen {
					continue
				}
				if int(pat.length) == wantLen && (want.kind != "disallow" || l.kind == "disallow") {
					continue
				}
				want, wantLen = l, int(pat.length)
			}
			d := p.Evaluate("archivectl", path)
			if np == "/robots.txt" {
				continue
			}
			if want == nil && d.Rule.Kind != KindImplicit || want != nil && (d.Rule.Line != want.n || d.Allowed != (want.kind != "disallow")) {
				t.Fatalf("round %d path %q: rule %+v, want %+v\n%s", round, path, d.Rule, want, body.String())
			}
		}
	}
}

func TestEvaluateDoesNotAllocate(t *testing.T) {
	var body strings.Builder
	body.WriteString("User-agent: *\nArchive-Embargo: w\n")
	for i := 0; i < 200; i++ { // enough rules for the prefix index
		fmt.Fprintf(&body, "Disallow: /p%d/*.php$\nAllow: /p%d/a*b\nEmbargo-Allow: /q%d\n", i, i, i)
	}
	p := NewPolicy([]byte(body.String()))
	// Paths already in normal form (docs/rules.md#d4), as net/url writes them; others are normalised into one new string.
	paths := []string{"/p7/x.php", "/p7/ab", "/q1/x?y=1", "/other/page.html", "/robots.txt", "/caf%C3%A9"}
	p.Evaluate("archivectl", "/") // computes the agent's merged group once
	for _, path := range paths {
		if n := testing.AllocsPerRun(100, func() { p.Evaluate("archivectl", path) }); n != 0 {
			t.Errorf("Evaluate(%q) allocates %.0f times per run, want 0", path, n)
		}
	}
}
