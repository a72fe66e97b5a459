package strictyaml

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type section struct {
	Delay   time.Duration     `yaml:"delay"`
	Pages   int               `yaml:"max_pages"`
	On      bool              `yaml:"on"`
	Include []string          `yaml:"include"`
	Resolve map[string]string `yaml:"resolve"`
}

type doc struct {
	Name  string  `yaml:"name"`
	Crawl section `yaml:"crawl"`
}

func TestDecode(t *testing.T) {
	t.Parallel()
	defaults := doc{Name: "d", Crawl: section{Delay: time.Second, Pages: 10}}
	for _, tc := range []struct {
		name, yaml string
		want       doc
		lines      map[string]int
		err        string // the start of the error, "" for none
	}{
		{"empty keeps the defaults", "", defaults, map[string]int{}, ""},
		{"null keeps a default", "name:\ncrawl:\n  delay: ~\n", defaults, map[string]int{"name": 1, "crawl": 2, "crawl.delay": 3}, ""},
		{"every kind", "crawl:\n  delay: 2s\n  max_pages: 5\n  on: true\n  include: [/a/, /b/]\n  resolve: {a.test: 127.0.0.1}\nname: x\n",
			doc{Name: "x", Crawl: section{Delay: 2 * time.Second, Pages: 5, On: true, Include: []string{"/a/", "/b/"}, Resolve: map[string]string{"a.test": "127.0.0.1"}}},
			map[string]int{"crawl": 1, "crawl.delay": 2, "crawl.max_pages": 3, "crawl.on": 4, "crawl.include": 5, "crawl.resolve": 6, "name": 7}, ""},
		{"unknown key, suggested", "crawl:\n  delai: 1s\n", defaults, nil, "line 2: unknown key crawl.delai (did you mean crawl.delay?)"},
		{"unknown key, listed", "colour: red\n", defaults, nil, "line 1: unknown key colour; the config takes name, crawl"},
		{"set twice", "name: a\nname: b\n", defaults, nil, "line 2: name is set twice (first at line 1)"},
		{"wrong type", "crawl:\n  max_pages: many\n", defaults, nil, `line 2: crawl.max_pages: "many" is not a whole number`},
		{"list for a scalar", "name: [a]\n", defaults, nil, "line 1: name takes a string, not a list"},
		{"second document", "name: a\n---\nname: b\n", defaults, nil, "line 2: a second YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := defaults
			lines, err := Decode([]byte(tc.yaml), &got)
			if tc.err != "" {
				var le *LineError
				if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), tc.err) {
					t.Errorf("error %v, want a *LineError starting %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(lines, tc.lines) {
				t.Errorf("got %+v, lines %v, %v; want %+v, lines %v", got, lines, err, tc.want, tc.lines)
			}
		})
	}
	var le *LineError
	if _, err := Decode([]byte("crawl:\n  delay: 1s\n delay: 2s\n"), &doc{}); err == nil || errors.As(err, &le) {
		t.Errorf("a document that is not YAML: %v, want the parser's error", err)
	}
}

// FuzzDecode: any document decodes or is an error, never a panic; a *LineError names a line of
// the document.
func FuzzDecode(f *testing.F) {
	f.Add("crawl:\n  delay: 2s\n  include: [/a/]\n  resolve: {a.test: b}\nname: x\n")
	f.Add("crawl: &a {delay: 1s}\nname: *a\n")
	f.Add("- 1\n")
	f.Fuzz(func(t *testing.T, y string) {
		var d doc
		_, err := Decode([]byte(y), &d)
		var le *LineError
		lines := 1 + strings.Count(strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n").Replace(y), "\n")
		if errors.As(err, &le) && (le.Line < 1 || le.Line > lines) {
			t.Errorf("%q: error at line %d of %d (YAML's line breaks: CR, LF, CRLF)", y, le.Line, lines)
		}
	})
}
