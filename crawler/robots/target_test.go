package robots

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		raw     string
		bare    bool
		want    Target
		wantErr error  // nil: no error
		errText string // the error's text, when wantErr is set
	}{
		{"https URL", "https://a.example/x?y#frag", false, Target{Raw: "https://a.example/x?y#frag", Origin: "https://a.example", PathQuery: "/x?y"}, nil, ""},
		{"no path", "HTTP://A.example:80", false, Target{Raw: "HTTP://A.example:80", Origin: "http://a.example", PathQuery: "/"}, nil, ""},
		{"query without a path", "https://a.example?q", false, Target{Raw: "https://a.example?q", Origin: "https://a.example", PathQuery: "/?q"}, nil, ""},
		{"a stray percent taken as written", "https://a.example/100%", false, Target{Raw: "https://a.example/100%", Origin: "https://a.example", PathQuery: "/100%"}, nil, ""},
		{"bare path with a file", "/a?b#c", true, Target{Raw: "/a?b#c", PathQuery: "/a?b"}, nil, ""},
		{"any scheme with a file", "ftp://a.example/x", true, Target{Raw: "ftp://a.example/x", Origin: "ftp://a.example", PathQuery: "/x"}, nil, ""},
		{"bare path to fetch", "/a", false, Target{}, ErrNotAbsolute, `invalid URL "/a": not absolute`},
		{"network-path reference", "//a.example/x", true, Target{}, ErrNotAbsolute, `invalid URL "//a.example/x": not absolute`},
		{"no host", "http:///x", true, Target{}, ErrNoHost, `invalid URL "http:///x": no host`},
		{"bad host", "http://[::1/x", false, Target{}, errAny, `invalid URL "http://[::1/x": missing ']' in host`},
		{"not fetchable", "ftp://a.example/x", false, Target{}, ErrNotFetchable, `cannot fetch robots.txt for "ftp://a.example/x": only http and https are fetched`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTarget(tc.raw, tc.bare)
			if tc.wantErr == nil {
				if err != nil || got != tc.want {
					t.Fatalf("ParseTarget(%q) = %+v, %v; want %+v", tc.raw, got, err, tc.want)
				}
				return
			}
			if err == nil || err.Error() != tc.errText || tc.wantErr != errAny && !errors.Is(err, tc.wantErr) {
				t.Fatalf("ParseTarget(%q) error %v, want %q", tc.raw, err, tc.errText)
			}
		})
	}
}

// errAny stands for an error of net/url in TestParseTarget.
var errAny = errors.New("any error")

func TestReadPolicy(t *testing.T) {
	t.Parallel()
	head := "User-agent: *\nDisallow: /a\n"
	pad := strings.Repeat("#", MaxBytes-len(head)-1) + "\n"
	tests := []struct {
		name string
		body io.Reader
		want []string // paths disallowed of /a, /b and /c
	}{
		{"small file", strings.NewReader(head + "Disallow: /b\n"), []string{"/a", "/b"}},
		{"a line past the limit is dropped", strings.NewReader(head + pad + "Disallow: /b\n"), []string{"/a"}},
		{"a line cut by the limit is dropped", strings.NewReader(head + pad[1:] + "Disallow: /c\n"), []string{"/a"}},
		{"an endless body is read to the limit only", io.MultiReader(strings.NewReader(head+"Disallow: /c\n"), &endless{}), []string{"/a", "/c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := ReadPolicy(tc.body)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, path := range []string{"/a", "/b", "/c"} {
				if !p.Evaluate("archivectl", path).Allowed {
					got = append(got, path)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("disallowed %v, want %v", got, tc.want)
			}
			if e, ok := tc.body.(*endless); ok && e.n > MaxBytes+1 {
				t.Fatalf("read %d bytes, want at most %d", e.n, MaxBytes+1)
			}
		})
	}
}

// endless serves comment lines forever, counting what it served.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "#\n"[(e.n+i)%2]
	}
	e.n += len(p)
	return len(p), nil
}

func TestDecisionUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		usage []string
		want  string
	}{
		{"none", nil, ""},
		{"one statement", []string{"train-ai=n, search=y"}, "search=y, train-ai=n"},
		{"n beats y", []string{"train-ai=y", "train-ai=n, search=y"}, "search=y, train-ai=n"},
		{"an unparseable statement adds nothing", []string{"search=y", "not a dictionary ü"}, "search=y"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := (Decision{Allowed: true, ContentUsage: tc.usage}).Usage().String(); got != tc.want {
				t.Fatalf("Usage() = %q, want %q", got, tc.want)
			}
		})
	}
}
