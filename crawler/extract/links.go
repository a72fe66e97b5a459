package extract

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"golang.org/x/net/html"
)

// Limits of link extraction: decoded bytes parsed per document (Decoded) and references kept
// per document (HTML, CSS).
const (
	MaxParseBytes = 8 << 20
	MaxLinks      = 10000
)

// Where an HTML document refers to other resources: per element, the attributes that hold a
// URL and whether the resource is embedded in the page (a requisite) or linked from it. A
// link element's rel decides (embedRels); a style attribute on any element, and a style
// element's text, hold CSS whose url() and @import references are embedded.
var (
	linkAttrs = map[string]map[string]bool{ // element → attribute → embedded
		"a":      {"href": false},
		"area":   {"href": false},
		"iframe": {"src": false},
		"frame":  {"src": false},
		"link":   {"href": false, "imagesrcset": true},
		"img":    {"src": true, "srcset": true},
		"script": {"src": true},
		"source": {"src": true, "srcset": true},
		"video":  {"src": true, "poster": true},
		"audio":  {"src": true},
		"track":  {"src": true},
		"embed":  {"src": true},
		"object": {"data": true},
		"input":  {"src": true},
		"body":   {"background": true},
		"table":  {"background": true},
		"td":     {"background": true},
		"th":     {"background": true},
		"base":   {"href": false},
	}
	embedRels = map[string]bool{"stylesheet": true, "icon": true, "apple-touch-icon": true, "apple-touch-icon-precomposed": true,
		"mask-icon": true, "preload": true, "modulepreload": true, "manifest": true}
)

// Ref is one URL a document refers to, and whether the document embeds it.
type Ref struct {
	URL   string // canonical (Canonical)
	Embed bool   // a requisite of the document (an image, a stylesheet, …), not a link from it
}

// IsHTML reports whether a response's Content-Type (or, when absent, its sniffed type) is HTML.
func IsHTML(h http.Header, body []byte) bool {
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType(body)
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// Decoded returns a reader of the payload with its Content-Encoding undone, at most
// MaxParseBytes long; ok is false for an encoding this package does not decode.
func Decoded(h http.Header, body []byte) (io.Reader, bool) {
	return DecodedUpTo(h, body, MaxParseBytes)
}

// DecodedUpTo is Decoded with a limit of its own.
func DecodedUpTo(h http.Header, body []byte, limit int64) (io.Reader, bool) {
	var r io.Reader = bytes.NewReader(body)
	encs := h.Values("Content-Encoding")
	for i := len(encs) - 1; i >= 0; i-- {
		codings := strings.Split(encs[i], ",")
		slices.Reverse(codings)
		for _, e := range codings {
			switch strings.ToLower(strings.TrimSpace(e)) {
			case "", "identity":
			case "gzip", "x-gzip":
				zr, err := newGzipReader(r)
				if err != nil {
					return nil, false
				}
				r = zr
			case "deflate":
				r = flate.NewReader(r)
			default:
				return nil, false
			}
		}
	}
	return io.LimitReader(r, limit), true
}

// gzipReaders are inflaters for reuse: each holds tens of KB of tables and window.
var gzipReaders sync.Pool

// newGzipReader reads the gzip stream r with an inflater from gzipReaders; the inflater goes
// back to the pool once the stream ends or fails (a reader dropped before that is left to the GC).
func newGzipReader(r io.Reader) (io.Reader, error) {
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(r)
	} else {
		err = zr.Reset(r)
	}
	if err != nil {
		return nil, err
	}
	return &pooledGzip{zr: zr}, nil
}

// pooledGzip is one stream read through a pooled inflater.
type pooledGzip struct {
	zr  *gzip.Reader
	err error // the error that ended the stream, given again to every later Read
}

func (p *pooledGzip) Read(b []byte) (int, error) {
	if p.zr == nil {
		return 0, p.err
	}
	n, err := p.zr.Read(b)
	if err != nil {
		gzipReaders.Put(p.zr)
		p.zr, p.err = nil, err
	}
	return n, err
}

// URLs lists the URLs of refs.
func URLs(refs []Ref) []string {
	if len(refs) == 0 {
		return nil
	}
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.URL
	}
	return out
}

// refSet collects a document's references: canonical, without duplicates (a URL both linked
// and embedded counts as embedded), at most MaxLinks; the others past the bound are counted.
type refSet struct {
	out     []Ref
	seen    map[string]int // URL → index in out
	dropped int            // distinct references past maxLinks
}

// add resolves raw against base and keeps it.
func (s *refSet) add(base *url.URL, raw string, embed bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return
	}
	u, err := base.Parse(raw)
	if err != nil {
		return
	}
	c, ok := Canonical(u)
	if !ok {
		return
	}
	k := c.String()
	if i, dup := s.seen[k]; dup {
		if i >= 0 {
			s.out[i].Embed = s.out[i].Embed || embed
		}
		return
	}
	if len(s.out) >= MaxLinks {
		s.dropped++
		s.seen[k] = -1 // counted once
		return
	}
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	s.seen[k] = len(s.out)
	s.out = append(s.out, Ref{URL: k, Embed: embed})
}

// addSrcset keeps the URLs of a srcset attribute's candidates.
func (s *refSet) addSrcset(base *url.URL, v string, embed bool) {
	for _, cand := range strings.Split(v, ",") {
		if f := strings.Fields(cand); len(f) > 0 {
			s.add(base, f[0], embed)
		}
	}
}

// addCSS keeps the url() and @import references of CSS text, all embedded.
func (s *refSet) addCSS(base *url.URL, css []byte) {
	cssRefs(css, func(raw string) { s.add(base, raw, true) })
}

// HTML returns what an HTML document links to or embeds (a, area, link, img src/srcset,
// script, iframe, source, video, audio, embed, object, CSS url() and @import in style attributes
// and elements, …), resolved against base and the document's first <base href>, fragments
// dropped, in document order, without duplicates and at most MaxLinks of them, how many more it
// holds, and why parsing stopped before the end, if it did (a token over 1 MiB, a read error).
func HTML(base *url.URL, r io.Reader) ([]Ref, int, error) {
	z := html.NewTokenizer(r)
	z.SetMaxBuf(1 << 20)
	var (
		refs     refSet
		baseSeen bool
		inStyle  bool
		attrs    [][2]string
	)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return refs.out, refs.dropped, err
			}
			return refs.out, refs.dropped, nil
		case html.TextToken:
			if inStyle {
				refs.addCSS(base, z.Text())
			}
			continue
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			inStyle = false
			continue
		}
		// Most tags (p, div, span, …) can hold no reference: skip them without the copies of
		// their name and attributes that TagName and TagAttr make.
		var tagBuf [8]byte
		tag := rawTagName(z.Raw(), &tagBuf)
		inStyle = tt == html.StartTagToken && string(tag) == "style"
		if _, ok := linkAttrs[string(tag)]; !ok && !hasStyleBytes(z.Raw()) {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		want := linkAttrs[string(name)]
		attrs = attrs[:0]
		rel := ""
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			switch key := string(k); {
			case key == "style":
				refs.addCSS(base, v)
			case key == "rel":
				rel = string(v)
			default:
				if _, ok := want[key]; ok {
					attrs = append(attrs, [2]string{key, string(v)})
				}
			}
		}
		if string(name) == "link" && embedsRel(rel) {
			want = map[string]bool{"href": true, "imagesrcset": true}
		}
		for _, a := range attrs {
			key, v, embed := a[0], a[1], want[a[0]]
			switch {
			case string(name) == "base":
				if !baseSeen {
					baseSeen = true
					if b, err := base.Parse(strings.TrimSpace(v)); err == nil {
						base = b
					}
				}
			case key == "srcset" || key == "imagesrcset":
				refs.addSrcset(base, v, embed)
			default:
				refs.add(base, v, embed)
			}
		}
	}
}

// embedsRel reports whether a link element's rel makes its target a requisite.
func embedsRel(rel string) bool {
	for _, r := range strings.Fields(rel) {
		if embedRels[strings.ToLower(r)] {
			return true
		}
	}
	return false
}

// rawTagName is the name of the start tag raw, as Tokenizer.TagName gives it (lower case, up to
// white space, '/' or '>'), in b when it is one HTML looks at (at most 8 bytes); empty otherwise.
func rawTagName(raw []byte, b *[8]byte) []byte {
	n := 0
	for _, c := range raw[1:] {
		switch c {
		case ' ', '\n', '\r', '\t', '\f', '/', '>':
			return b[:n]
		}
		if n == len(b) {
			return nil
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[n] = c
		n++
	}
	return b[:n]
}

// hasStyleBytes reports whether raw holds "style" in any ASCII case: a tag without it has no
// style attribute.
func hasStyleBytes(raw []byte) bool {
	const s = "style"
	for i := 0; i+len(s) <= len(raw); i++ {
		j := 0
		for j < len(s) && raw[i+j]|0x20 == s[j] {
			j++
		}
		if j == len(s) {
			return true
		}
	}
	return false
}
