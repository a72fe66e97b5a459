package extract

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestExtractLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		html string
		want []string
	}{
		{"anchor and area", `<a href="/a">a</a><map><area href="b"></map>`, []string{"http://s.example/a", "http://s.example/dir/b"}},
		{"requisites", `<link rel=stylesheet href=/s.css><img src=i.png><script src="/j.js"></script><iframe src="f.html"></iframe>`,
			[]string{"http://s.example/s.css", "http://s.example/dir/i.png", "http://s.example/j.js", "http://s.example/dir/f.html"}},
		{"srcset", `<img srcset="x1.png 1x, /x2.png 2x"><picture><source srcset="w.webp 100w" src="s.png"></picture>`,
			[]string{"http://s.example/dir/x1.png", "http://s.example/x2.png", "http://s.example/dir/w.webp", "http://s.example/dir/s.png"}},
		{"base href changes resolution", `<base href="http://s.example/other/"><a href="x">x</a>`, []string{"http://s.example/other/x"}},
		{"only the first base counts", `<base href="/one/"><base href="/two/"><a href="x">x</a>`, []string{"http://s.example/one/x"}},
		{"fragments dropped and duplicates removed", `<a href="/a#1">1</a><a href="/a#2">2</a><a href="#top">top</a>`, []string{"http://s.example/a", "http://s.example/dir/page"}},
		{"non-http schemes ignored", `<a href="mailto:x@y">m</a><a href="javascript:void(0)">j</a><a href="ftp://f/">f</a>`, nil},
		{"other origins kept for the scope check", `<a href="https://o.example/">o</a>`, []string{"https://o.example/"}},
		{"attributes of other elements ignored", `<div href="/no"></div><a name="x">no href</a><img data-src="/no.png">`, nil},
		{"self-closing tags", `<img src="/i.png"/><link href="/l"/>`, []string{"http://s.example/i.png", "http://s.example/l"}},
		{"garbage yields nothing", "\x00\xff<<<>>>\x89PNG", nil},
		{"media", `<video src="v.mp4" poster="p.jpg"><source src="v.webm"><track src="t.vtt"></video><audio src="/a.ogg"></audio>`,
			[]string{"http://s.example/dir/v.mp4", "http://s.example/dir/p.jpg", "http://s.example/dir/v.webm", "http://s.example/dir/t.vtt", "http://s.example/a.ogg"}},
		{"embed, object, input, background", `<body background="bg.png"><embed src="e.swf"><object data="o.svg"></object><input type=image src="go.png">`,
			[]string{"http://s.example/dir/bg.png", "http://s.example/dir/e.swf", "http://s.example/dir/o.svg", "http://s.example/dir/go.png"}},
		{"CSS in style attributes and elements", `<div style="background:url(d.png)"></div><style>@import "s.css"; p{background:url('/p.png')}</style><p>url(not.png)</p>`,
			[]string{"http://s.example/dir/d.png", "http://s.example/dir/s.css", "http://s.example/p.png"}},
		{"tag names in any case, ended by white space, / or >", "<A\tHREF=/u1>x</A><IMG\nsrc=/u2><Img/src=/u3><aside href=/no><abbr href=/no><P STYLE=\"background:url(/u4)\">",
			[]string{"http://s.example/u1", "http://s.example/u2", "http://s.example/u3", "http://s.example/u4"}},
		{"style attributes in any case, on any element", `<section class=x StYlE="background:url(/s1)"><span data-style="a" style='background:url(/s2)'>`,
			[]string{"http://s.example/s1", "http://s.example/s2"}},
		{"data and javascript schemes ignored", `<img src="data:image/png;base64,AAAA"><script src="javascript:alert(1)"></script><div style="background:url(data:x)">`, nil},
	}
	base, _ := url.Parse("http://s.example/dir/page")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := linksOf(base, strings.NewReader(tc.html))
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("links\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestExtractRefsEmbed checks which references a page embeds (its requisites) and which it links to.
func TestExtractRefsEmbed(t *testing.T) {
	t.Parallel()
	doc := `<a href="/a">a</a><link rel="stylesheet" href="/s.css"><link rel="Shortcut Icon" href="/i.ico">` +
		`<link rel=alternate href="/feed"><link rel=preload href="/f.woff2" imagesrcset="/h.png 2x"><iframe src="/frame"></iframe>` +
		`<img src="/a"><script src="https://cdn.example/j.js"></script>`
	base, _ := url.Parse("http://s.example/")
	refs, _, err := HTML(base, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{{"http://s.example/a", true}, {"http://s.example/s.css", true}, {"http://s.example/i.ico", true},
		{"http://s.example/feed", false}, {"http://s.example/f.woff2", true}, {"http://s.example/h.png", true},
		{"http://s.example/frame", false}, {"https://cdn.example/j.js", true}}
	if len(refs) != len(want) {
		t.Fatalf("refs %+v\nwant %+v", refs, want)
	}
	for i := range want {
		if refs[i] != want[i] {
			t.Errorf("ref %d: %+v, want %+v", i, refs[i], want[i])
		}
	}
}

func TestExtractLinksBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range MaxLinks + 50 {
		b.WriteString(`<a href="/p` + strconv.Itoa(i) + `">x</a>`)
	}
	b.WriteString(`<a href="/p` + strconv.Itoa(MaxLinks+1) + `">the same dropped link again</a>`)
	base, _ := url.Parse("http://s.example/")
	refs, dropped, err := HTML(base, strings.NewReader(b.String()))
	if len(refs) != MaxLinks || dropped != 50 || err != nil {
		t.Fatalf("%d links kept, %d dropped, err %v; want the bound %d, 50 dropped", len(refs), dropped, err, MaxLinks)
	}
}

func TestDecodedIsBounded(t *testing.T) {
	t.Parallel()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(`<a href="/first">`))
	zw.Write(make([]byte, 3*MaxParseBytes))
	zw.Close()
	tests := []struct {
		name   string
		header http.Header
		body   []byte
		ok     bool
		n      int
	}{
		{"gzip bomb cut at the parse limit", http.Header{"Content-Encoding": {"gzip"}}, z.Bytes(), true, MaxParseBytes},
		{"identity", http.Header{}, []byte("<p>hi</p>"), true, 9},
		{"unknown coding not parsed", http.Header{"Content-Encoding": {"br"}}, []byte("x"), false, 0},
		{"broken gzip not parsed", http.Header{"Content-Encoding": {"gzip"}}, []byte("not gzip"), false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, ok := Decoded(tc.header, tc.body)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			var buf bytes.Buffer
			n, _ := buf.ReadFrom(r)
			if int(n) != tc.n {
				t.Fatalf("decoded %d bytes, want %d", n, tc.n)
			}
		})
	}
}

// TestDecodedReusesInflaters decodes gzip payloads, nested, truncated and whole, one after
// another and at once, through the pooled inflaters: each reads as its own stream, and a Read
// after the end gives the end again.
func TestDecodedReusesInflaters(t *testing.T) {
	t.Parallel()
	gz := func(b []byte) []byte {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		return z.Bytes()
	}
	tests := []struct {
		name, enc string
		body      []byte
		want      string
		err       bool
	}{
		{"whole", "gzip", gz([]byte("<p>one</p>")), "<p>one</p>", false},
		{"twice encoded", "gzip, x-gzip", gz(gz([]byte("<p>two</p>"))), "<p>two</p>", false},
		{"truncated", "gzip", gz([]byte(strings.Repeat("<p>three</p>", 100)))[:40], "", true},
		{"empty", "gzip", gz(nil), "", false},
	}
	for range 20 {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				r, ok := Decoded(http.Header{"Content-Encoding": {tc.enc}}, tc.body)
				if !ok {
					t.Fatal("not decoded")
				}
				got, err := io.ReadAll(r)
				if (err != nil) != tc.err || !tc.err && string(got) != tc.want {
					t.Fatalf("got %q, %v; want %q (error %v)", got, err, tc.want, tc.err)
				}
				if n, again := r.Read(make([]byte, 8)); n != 0 || again == nil {
					t.Fatalf("read after the end: %d, %v", n, again)
				}
			})
		}
	}
}

func TestIsHTML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ct, body string
		want           bool
	}{
		{"text/html", "text/html; charset=utf-8", "", true},
		{"xhtml", "application/xhtml+xml", "", true},
		{"plain text", "text/plain", "<html>", false},
		{"image", "image/png", "", false},
		{"sniffed when absent", "", "<!DOCTYPE html><html>", true},
		{"invalid type", "text/html; ===", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tc.ct != "" {
				h.Set("Content-Type", tc.ct)
			}
			if got := IsHTML(h, []byte(tc.body)); got != tc.want {
				t.Fatalf("IsHTML = %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzExtractLinks(f *testing.F) {
	f.Add(`<a href="/a">a</a><img srcset="a 1x, b 2x"><base href="http://x.example/">`)
	f.Add("\x00<a href='\xff'>")
	base, _ := url.Parse("http://s.example/d/")
	f.Fuzz(func(t *testing.T, doc string) {
		links := linksOf(base, strings.NewReader(doc))
		if len(links) > MaxLinks {
			t.Fatalf("%d links", len(links))
		}
		for _, l := range links {
			u, err := url.Parse(l)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Fragment != "" || u.Host == "" {
				t.Fatalf("bad link %q", l)
			}
		}
	})
}

// linksOf is the URLs HTML finds, whatever stopped it.
func linksOf(base *url.URL, r io.Reader) []string {
	refs, _, _ := HTML(base, r)
	return URLs(refs)
}
