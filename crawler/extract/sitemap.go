package extract

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// Limits of one sitemap file, from the sitemaps.org protocol (50,000 URLs, 50 MB uncompressed,
// URLs under 2,048 characters), and of its XML nesting.
const (
	maxSitemapURLs    = 50000
	MaxSitemapBytes   = 50 << 20
	maxSitemapLoc     = 2048
	maxSitemapNesting = 16
)

// SitemapEntry is one <url> or <sitemap> of a sitemap, or one line of a text sitemap.
type SitemapEntry struct {
	Loc     string
	Lastmod string // as written, when it is a W3C datetime; "" otherwise
}

// Sitemap is what a sitemap file lists.
type Sitemap struct {
	Index   bool // a sitemap index: the entries are sitemaps
	Entries []SitemapEntry
	Cut     string // why reading stopped before the end; "" when the whole file was read
	Skipped int    // entries dropped: no <loc>, one of 2,048 characters or more, a text line not an absolute http(s) URL
}

// ReadSitemap reads a sitemap or sitemap index (sitemaps.org XML, or plain text with one URL
// a line), gzip-compressed or not. It reads at most MaxSitemapBytes once uncompressed and keeps
// at most maxSitemapURLs entries; whatever stops it early (bad XML, bad gzip, a limit) is named
// in Cut, and the entries read until then are kept.
func ReadSitemap(r io.Reader) Sitemap {
	var sm Sitemap
	br := bufio.NewReader(r)
	what := "read"
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		what = "gzip"
		zr, err := gzip.NewReader(br)
		if err != nil {
			sm.Cut = "gzip: " + err.Error()
			return sm
		}
		br = bufio.NewReader(zr)
	}
	capped := &capReader{r: br, n: MaxSitemapBytes}
	in := bufio.NewReader(capped)
	if first, err := firstNonSpace(in); err == nil && first == '<' {
		readXMLSitemap(in, &sm)
	} else if err == nil {
		readTextSitemap(in, &sm)
	}
	if capped.over && len(sm.Entries) < maxSitemapURLs {
		sm.Cut = fmt.Sprintf("larger than %d MB uncompressed: read up to the limit", MaxSitemapBytes>>20)
	}
	if capped.err != nil {
		sm.Cut = what + ": " + capped.err.Error()
	}
	return sm
}

// firstNonSpace peeks at the first byte that is not white space (or a UTF-8 byte order mark).
func firstNonSpace(r *bufio.Reader) (byte, error) {
	if bom, _ := r.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		r.Discard(3)
	}
	for {
		b, err := r.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			r.Discard(1)
		default:
			return b[0], nil
		}
	}
}

// readXMLSitemap reads <urlset> or <sitemapindex>. Entities are never expanded (encoding/xml
// knows only the predefined five), so an entity bomb is an error, not an expansion.
func readXMLSitemap(r io.Reader, sm *Sitemap) {
	d := xml.NewDecoder(r)
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil } // URLs are ASCII in practice
	var (
		stack []string
		cur   SitemapEntry
		field string
		text  strings.Builder
		entry = "url"
	)
	for {
		tok, err := d.Token()
		if err != nil {
			if err != io.EOF {
				sm.Cut = "invalid XML: " + err.Error()
			}
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if len(stack) == 0 {
				switch name {
				case "urlset":
				case "sitemapindex":
					sm.Index, entry = true, "sitemap"
				default:
					sm.Cut = "not a sitemap: the root element is <" + t.Name.Local + ">"
					return
				}
			}
			if len(stack) >= maxSitemapNesting {
				sm.Cut = "XML nested too deep"
				return
			}
			stack = append(stack, name)
			if len(stack) == 3 && stack[1] == entry && (name == "loc" || name == "lastmod") {
				field = name
				text.Reset()
			}
		case xml.CharData:
			if field != "" && text.Len() <= maxSitemapLoc {
				text.Write(t[:min(len(t), maxSitemapLoc+1-text.Len())])
			}
		case xml.EndElement:
			switch {
			case len(stack) == 3 && field != "":
				v := strings.TrimSpace(text.String())
				if field == "loc" {
					cur.Loc = v
				} else {
					cur.Lastmod = w3cDatetime(v)
				}
				field = ""
			case len(stack) == 2 && stack[1] == entry:
				if !sm.keep(cur) {
					return
				}
				cur = SitemapEntry{}
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
}

// readTextSitemap reads one URL a line. sitemaps.org asks for absolute URLs: a line that is not
// an absolute http(s) URL is skipped, never resolved against the sitemap's own URL (a line of
// prose would otherwise become a relative URL).
func readTextSitemap(r io.Reader, sm *Sitemap) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if u, err := url.Parse(line); err != nil || !u.IsAbs() || u.Host == "" || (strings.ToLower(u.Scheme) != "http" && strings.ToLower(u.Scheme) != "https") {
			sm.Skipped++
			continue
		}
		if !sm.keep(SitemapEntry{Loc: line}) {
			return
		}
	}
	if err := sc.Err(); err != nil {
		sm.Cut = "text sitemap: " + err.Error()
	}
}

// keep adds e unless it is unusable; false when the file's entry limit is reached.
func (sm *Sitemap) keep(e SitemapEntry) bool {
	if e.Loc == "" || len(e.Loc) >= maxSitemapLoc {
		sm.Skipped++
		return true
	}
	sm.Entries = append(sm.Entries, e)
	if len(sm.Entries) >= maxSitemapURLs {
		sm.Cut = fmt.Sprintf("more than %d entries: the rest ignored", maxSitemapURLs)
		return false
	}
	return true
}

// w3cDatetime returns v when it is a W3C datetime (as sitemaps write lastmod), else "".
func w3cDatetime(v string) string {
	for _, layout := range []string{"2006-01-02", time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01", "2006"} {
		if _, err := time.Parse(layout, v); err == nil {
			return v
		}
	}
	return ""
}

// capReader reads at most n bytes of r, then reports EOF, noting whether r had more.
type capReader struct {
	r    io.Reader
	n    int64
	over bool
	err  error // a read error other than EOF (bad gzip data)
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		var one [1]byte
		if k, _ := c.r.Read(one[:]); k > 0 {
			c.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	k, err := c.r.Read(p)
	c.n -= int64(k)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return k, err
}
