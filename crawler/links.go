package crawler

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// Limits of link extraction: decoded bytes parsed per page and links kept per page.
const (
	maxParseBytes = 8 << 20
	maxLinks      = 10000
)

// linkAttrs names, per element, the attributes that hold links (srcset handled apart).
var linkAttrs = map[string][]string{
	"a":      {"href"},
	"area":   {"href"},
	"link":   {"href"},
	"img":    {"src", "srcset"},
	"script": {"src"},
	"iframe": {"src"},
	"source": {"src", "srcset"},
	"base":   {"href"},
}

// isHTML reports whether a response's Content-Type (or, when absent, its sniffed type) is HTML.
func isHTML(h http.Header, body []byte) bool {
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

// decoded returns a reader of the payload with its Content-Encoding undone, at most
// maxParseBytes long; ok is false for an encoding the crawler does not parse.
func decoded(h http.Header, body []byte) (io.Reader, bool) {
	var r io.Reader = bytes.NewReader(body)
	encs := h.Values("Content-Encoding")
	for i := len(encs) - 1; i >= 0; i-- {
		codings := strings.Split(encs[i], ",")
		slices.Reverse(codings)
		for _, e := range codings {
			switch strings.ToLower(strings.TrimSpace(e)) {
			case "", "identity":
			case "gzip", "x-gzip":
				zr, err := gzip.NewReader(r)
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
	return io.LimitReader(r, maxParseBytes), true
}

// extractLinks returns the absolute http(s) URLs an HTML document links to or embeds
// (a, area, link, img src/srcset, script, iframe, source src/srcset), resolved against
// base and the document's first <base href>, fragments dropped, in document order,
// without duplicates and at most maxLinks of them, and says why parsing stopped before the end,
// if it did (a token over 1 MiB, a read error).
func extractLinks(base *url.URL, r io.Reader) ([]string, error) {
	z := html.NewTokenizer(r)
	z.SetMaxBuf(1 << 20)
	var (
		out      []string
		seen     = map[string]bool{}
		baseSeen bool
	)
	add := func(ref string) {
		ref = strings.TrimSpace(ref)
		if ref == "" || len(out) >= maxLinks {
			return
		}
		u, err := base.Parse(ref)
		if err != nil {
			return
		}
		c, ok := canonical(u)
		if !ok {
			return
		}
		s := c.String()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if err := z.Err(); err != io.EOF {
				return out, err
			}
			return out, nil
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		attrs, ok := linkAttrs[string(name)]
		if !ok || !hasAttr {
			continue
		}
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			key := string(k)
			if !slices.Contains(attrs, key) {
				continue
			}
			switch {
			case string(name) == "base":
				if !baseSeen {
					baseSeen = true
					if b, err := base.Parse(strings.TrimSpace(string(v))); err == nil {
						base = b
					}
				}
			case key == "srcset":
				for _, cand := range strings.Split(string(v), ",") {
					if f := strings.Fields(cand); len(f) > 0 {
						add(f[0])
					}
				}
			default:
				add(string(v))
			}
		}
	}
}

// countingReader counts the bytes read through it and keeps the first few for sniffing.
type countingReader struct {
	r    io.Reader
	n    int64
	head []byte
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if len(c.head) < 512 {
		c.head = append(c.head, p[:min(n, 512-len(c.head))]...)
	}
	return n, err
}

// binary reports whether the start of what was read sniffs as binary data, not text.
func (c *countingReader) binary() bool {
	return len(c.head) > 0 && http.DetectContentType(c.head) == "application/octet-stream"
}
