package robots

import (
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{F1, F2, F3, F4, E1, E2, C1, "\xEF\xBB\xBFUser-agent: a\r\nDisallow /x\r\rAllow: /x$#c\n"} {
		f.Add([]byte(s), "/example/page.html?q=1")
	}
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		last := 0
		Parse(body, HandlerFunc(func(r Record) {
			if r.Line <= last {
				t.Fatalf("line %d after line %d", r.Line, last)
			}
			last = r.Line
			if strings.ContainsAny(r.Value, "#\r\n") || r.Value != trimWS(r.Value) || r.Name == "" || r.Name != trimWS(r.Name) {
				t.Fatalf("bad record %+v", r)
			}
		}))
		p := NewPolicy(body)
		for _, agent := range []string{"archivectl", "foobot", ""} {
			d := p.Evaluate(agent, path)
			if !d.Allowed && (d.Period != 0 || d.ContentUsage != nil) {
				t.Fatalf("disallowed with embargo or preferences: %+v", d)
			}
			if d.Allowed && d.Rule.Kind == "disallow" {
				t.Fatalf("allowed by a disallow rule: %+v", d)
			}
		}
	})
}

func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"/*.php$", "/a.php"}, {"/a*b*c", "/a1b2c3"}, {"*.gif$", "/x.gif"}, {"/a$b$", "/a$b"},
		{"/%2A", "/*"}, {"/foo/bar/%62%61%7A", "/foo/bar/baz"}, {"/ツ*", "/%e3%83%84x"}, {"/a**a$", "/aa"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, path string) {
		if len(pat) > 64 || len(path) > 256 {
			return // the reference matcher is quadratic in memory traffic
		}
		p := compilePattern(pat)
		np := normalize(path, false)
		for i := 0; i < len(np); i++ {
			if c := np[i]; c <= ' ' || c >= 0x7F || unsafeASCII[c] || c == '*' || c == '$' {
				t.Fatalf("normalize(%q) = %q keeps octet %q", path, np, c)
			}
		}
		want := matchPositionSet(normalize(pat, true), np)
		if got := p.match(np); got != want {
			t.Fatalf("match(%q, %q) = %v, reference %v", pat, path, got, want)
		}
	})
}

func FuzzContentUsage(f *testing.F) {
	for _, s := range []string{"train-ai=n", "/a/ train-ai=y", "/docs/\ttrain-ai=n, search=y", "*.pdf train-ai=n", "/only", "", "/a b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		p := NewPolicy([]byte("User-agent: *\nContent-Usage: " + value + "\n"))
		if len(p.usage) > 1 {
			t.Fatalf("%d rules from one line", len(p.usage))
		}
		for _, u := range p.usage {
			if u.raw != "" && (u.raw[0] != '/' || strings.ContainsAny(u.raw, " \t")) {
				t.Fatalf("bad path %q", u.raw)
			}
			if u.pref != trimWS(u.pref) || strings.ContainsAny(u.pref, "#\r\n") {
				t.Fatalf("bad preference %q", u.pref)
			}
			d := p.Evaluate("archivectl", "/x")
			if u.raw == "" && (len(d.ContentUsage) != 1 || d.ContentUsage[0] != u.pref) {
				t.Fatalf("a rule without a path must apply everywhere: %q", d.ContentUsage)
			}
		}
	})
}
