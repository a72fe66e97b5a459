package extract

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCSSRefs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		css  string
		want []string
	}{
		{"url forms", `a{background:url(a.png)} b{background:url( "b c.png" )} i{background:URL('i.png')}`, []string{"a.png", "b c.png", "i.png"}},
		{"import string and url", `@import "s.css"; @import url(t.css) screen; @IMPORT 'u.css';`, []string{"s.css", "t.css", "u.css"}},
		{"font-face src with format strings", `@font-face{font-family:"F";src:url(f.woff2) format("woff2"),url(f.woff) format("woff")}`, []string{"f.woff2", "f.woff"}},
		{"src() function", `@font-face{src:src("g.woff2")}`, []string{"g.woff2"}},
		{"image-set strings, not nested ones", `a{background:image-set("x1.png" 1x, url(x2.png) 2x, "x3.avif" type("image/avif"))}`, []string{"x1.png", "x2.png", "x3.avif"}},
		{"-webkit-image-set", `a{background:-webkit-image-set("w.png" 1x)}`, []string{"w.png"}},
		{"escapes", `a{background:url(a\29 b.png)} b{background:url("q\"\
uote.png")} c{background:url(\66 oo.png)}`, []string{"a)b.png", `q"uote.png`, "foo.png"}},
		{"comments hide nothing but themselves", `/* url(no.png) */ a{background:url(/*x*/yes.png)}`, []string{"/*x*/yes.png"}},
		{"strings elsewhere are not references", `a{content:"url(no.png)";font-family:"x.png"} @charset "utf-8";`, nil},
		{"a bad url is skipped", `a{background:url(a b.png)} b{background:url(ok.png)}`, []string{"ok.png"}},
		{"unterminated", `a{background:url("open.png`, []string{"open.png"}},
		{"NUL bytes", "a{background:url(x\x00.png)} b{background:url(y.png)}", []string{"y.png"}},
		{"empty", ``, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			cssRefs([]byte(tc.css), func(s string) { got = append(got, s) })
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("refs\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestIsCSS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ct, path string
		want           bool
	}{
		{"text/css", "text/css; charset=utf-8", "/s", true},
		{"html", "text/html", "/s.css", false},
		{"no type, .css path", "", "/a/S.CSS", true},
		{"no type, other path", "", "/a/s.js", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tc.ct != "" {
				h.Set("Content-Type", tc.ct)
			}
			if got := IsCSS(h, &url.URL{Path: tc.path}); got != tc.want {
				t.Fatalf("IsCSS = %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzCSSRefs(f *testing.F) {
	f.Add(`@import "a.css"; a{background:url(b.png) image-set("c.png" 1x)}`)
	f.Add("a{background:url(\\0 \\110000\\d800)}\x00\xff")
	f.Fuzz(func(t *testing.T, css string) {
		base, _ := url.Parse("http://s.example/d/")
		var refs refSet
		refs.addCSS(base, []byte(css))
		for _, r := range refs.out {
			u, err := url.Parse(r.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !r.Embed {
				t.Fatalf("bad reference %+v", r)
			}
		}
		cssRefs([]byte(css), func(s string) {
			if !utf8.ValidString(s) && utf8.ValidString(css) {
				t.Fatalf("invalid UTF-8 %q from valid input", s)
			}
		})
	})
}
