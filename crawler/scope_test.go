package crawler

import (
	"net/url"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/crawler/extract"
)

func TestScope(t *testing.T) {
	t.Parallel()
	seed := func(raw string, sc Scope) Seed {
		u, _ := url.Parse(raw)
		c, _ := extract.Canonical(u)
		return Seed{URL: c, Scope: sc}
	}
	tests := []struct {
		name             string
		seeds            []Seed
		include, exclude []string
		in, out          []string
	}{
		{"origin: scheme, host and port", []Seed{seed("https://www.example.com/a", "")}, nil, nil,
			[]string{"https://www.example.com/", "https://www.example.com/x/y?z"},
			[]string{"http://www.example.com/", "https://www.example.com:8443/", "https://example.com/"}},
		{"host: any scheme or port", []Seed{seed("https://www.example.com/", ScopeHost)}, nil, nil,
			[]string{"http://www.example.com/", "https://www.example.com:8443/a"},
			[]string{"https://example.com/", "https://news.example.com/"}},
		{"domain: the registrable domain and its subdomains", []Seed{seed("https://www.example.co.uk/", ScopeDomain)}, nil, nil,
			[]string{"https://example.co.uk/", "http://news.example.co.uk:81/", "https://a.b.example.co.uk/"},
			[]string{"https://other.co.uk/", "https://co.uk/", "https://example.com/", "https://notexample.co.uk/"}},
		{"domain of an IP address is the address", []Seed{seed("http://127.0.0.1:8080/", ScopeDomain)}, nil, nil,
			[]string{"http://127.0.0.1:9090/", "https://127.0.0.1/"},
			[]string{"http://127.0.0.2/", "http://0.1/"}},
		{"domain of a private suffix", []Seed{seed("https://me.github.io/", ScopeDomain)}, nil, nil,
			[]string{"https://me.github.io/x", "https://www.me.github.io/"},
			[]string{"https://you.github.io/", "https://github.io/"}},
		{"domain of an internationalised name", []Seed{seed("https://www.bücher.example/", ScopeDomain)}, nil, nil,
			[]string{"https://xn--bcher-kva.example/", "https://shop.bücher.example/"},
			[]string{"https://bucher.example/"}},
		{"prefix: the seed's directory", []Seed{seed("https://example.com/news/index.html", ScopePrefix)}, nil, nil,
			[]string{"https://example.com/news/", "https://example.com/news/2026/a"},
			[]string{"https://example.com/newsletter", "https://example.com/", "http://example.com/news/"}},
		{"several seeds, several scopes", []Seed{seed("https://a.example/", ""), seed("https://b.example/x/", ScopePrefix)}, nil, nil,
			[]string{"https://a.example/z", "https://b.example/x/y"},
			[]string{"https://b.example/z"}},
		{"include narrows", []Seed{seed("https://a.example/", "")}, []string{"/news/", "/*.html$"}, nil,
			[]string{"https://a.example/news/x", "https://a.example/a/b.html"},
			[]string{"https://a.example/", "https://a.example/a/b.html?x"}},
		{"exclude wins", []Seed{seed("https://a.example/", ScopeHost)}, nil, []string{"/private", "http://a.example/*.pdf$"},
			[]string{"https://a.example/x.pdf", "http://a.example/public"},
			[]string{"https://a.example/private/x", "http://a.example/x.pdf"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := newScope(tc.seeds, DefaultScope, tc.include, tc.exclude)
			if err != nil {
				t.Fatal(err)
			}
			for _, raw := range tc.in {
				if u := mustCanonical(t, raw); !s.contains(u) {
					t.Errorf("%s is out of scope, want in", raw)
				}
			}
			for _, raw := range tc.out {
				if u := mustCanonical(t, raw); s.contains(u) {
					t.Errorf("%s is in scope, want out", raw)
				}
			}
		})
	}
}

func mustCanonical(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := extract.Canonical(u)
	if !ok {
		t.Fatalf("%s is not crawlable", raw)
	}
	return c
}

func TestParseURLPatternErrors(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"news/", "ftp://a.example/", "https://u@a.example/", "https://a*.example/", "https:///x", ""} {
		if _, err := parseURLPattern(raw); err == nil {
			t.Errorf("pattern %q accepted", raw)
		}
	}
}

func TestReadSeedsScope(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		line  string
		scope Scope
		bad   string // part of the reason; "" when the line is valid
	}{
		{"plain line", "https://a.example/", "", ""},
		{"own scope", "https://a.example/news/ scope=prefix", ScopePrefix, ""},
		{"tabs and case", "https://a.example/\tscope=DOMAIN", ScopeDomain, ""},
		{"unknown scope", "https://a.example/ scope=planet", "", "scope=planet"},
		{"empty scope", "https://a.example/ scope=", "", "scope="},
		{"two scopes", "https://a.example/ scope=host scope=domain", "", "at most one"},
		{"unknown option", "https://a.example/ depth=3", "", "at most one"},
		{"two URLs", "https://a.example/ https://b.example/", "", "one URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			seeds, err := ReadSeeds(strings.NewReader(tc.line + "\n"))
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("err = %v, want one saying %q", err, tc.bad)
				}
				return
			}
			if err != nil || len(seeds) != 1 || seeds[0].Scope != tc.scope || seeds[0].URL.String() != "https://a.example/"+strings.TrimPrefix(strings.Fields(tc.line)[0], "https://a.example/") {
				t.Fatalf("ReadSeeds = %+v, %v; want scope %q", seeds, err, tc.scope)
			}
		})
	}
}
