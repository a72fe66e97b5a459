package export

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// maxTitle is the longest page title kept, in bytes.
const maxTitle = 1000

// isPage reports whether a capture is a page: a successful HTML response (or a revisit of one)
// of an http(s) URL. A page's rendered DOM (a resource record, urn:dom: and the page's URL) is
// HTML too, but no page of its own.
func isPage(c *Capture) bool {
	return IsWeb(c.URL) && c.Status >= 200 && c.Status < 300 && IsHTML(c.Mime)
}

// IsWeb reports whether a capture's URL is an http(s) URL: not a page's snapshot (urn:dom:…).
func IsWeb(rawURL string) bool {
	return strings.HasPrefix(rawURL, "http://") || strings.HasPrefix(rawURL, "https://")
}

// IsHTML reports whether a capture's media type is that of a page: text/html or
// application/xhtml+xml.
func IsHTML(mime string) bool { return mime == "text/html" || mime == "application/xhtml+xml" }

// page is one line of pages/pages.jsonl.
type page struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	TS    string `json:"ts"` // RFC 3339, to the second (the index's precision)
	Title string `json:"title,omitempty"`
}

// pageID is a page's identifier: the first 16 bytes of its capture id's SHA-256, in hex.
func pageID(captureID string) string {
	h := sha256.Sum256([]byte(captureID))
	return hex.EncodeToString(h[:16])
}

// pagesJSONL renders pages/pages.jsonl: the json-pages-1.0 header line, then one line per page.
func pagesJSONL(pages []page) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"format":"json-pages-1.0","id":"pages","title":"All Pages"}` + "\n")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, p := range pages {
		if err := enc.Encode(p); err != nil { // Encode ends the line
			return nil, fmt.Errorf("pages: %w", err)
		}
	}
	return b.Bytes(), nil
}

// newPage is the pages.jsonl entry of a capture with its title ("" when unknown).
func newPage(c *Capture, title string) page {
	return page{ID: pageID(c.ID), URL: c.URL, TS: c.Captured.UTC().Truncate(time.Second).Format(time.RFC3339), Title: title}
}

// pageTitle is the text of the first <title> element of an HTML response, given its HTTP head and
// the start of its payload, with white space collapsed; "" when there is none or the payload's
// transfer or content coding is one it cannot undo (chunked, gzip and deflate it can).
func pageTitle(head, start []byte) string {
	resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(bytes.NewReader(head), bytes.NewReader(start))), nil)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var body io.Reader = resp.Body // without the transfer coding
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return ""
		}
		body = zr
	case "deflate":
		body = flate.NewReader(body)
	default:
		return ""
	}
	return firstTitle(body)
}

// firstTitle is the text of the first <title> element before <body>, whitespace collapsed and cut
// to maxTitle bytes; a document that ends early (a cut payload) gives what was read.
func firstTitle(r io.Reader) string {
	z := html.NewTokenizer(r)
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "body", "svg", "math":
				return ""
			case "title":
				var text strings.Builder
				for z.Next() == html.TextToken && text.Len() < 4*maxTitle {
					text.Write(z.Text())
				}
				return clip(strings.Join(strings.Fields(strings.ToValidUTF8(text.String(), "\uFFFD")), " "))
			}
		}
	}
}

// clip cuts s to at most maxTitle bytes, at a character boundary.
func clip(s string) string {
	if len(s) <= maxTitle {
		return s
	}
	s = s[:maxTitle]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
