package extract

import (
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
)

// IsCSS reports whether a response is a stylesheet: Content-Type text/css or, without a
// Content-Type, a path ending in .css.
func IsCSS(h http.Header, u *url.URL) bool {
	ct := h.Get("Content-Type")
	if ct == "" {
		return strings.HasSuffix(strings.ToLower(u.Path), ".css")
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "text/css"
}

// CSS reads a stylesheet and returns its url() and @import references, all embedded, resolved
// against base, canonical, without duplicates and at most MaxLinks of them, how many more it
// holds, and the error that stopped reading r, if any.
func CSS(base *url.URL, r io.Reader) ([]Ref, int, error) {
	b, err := io.ReadAll(r)
	var refs refSet
	refs.addCSS(base, b)
	return refs.out, refs.dropped, err
}

// cssRefs calls add with every resource a stylesheet, a style element or a style attribute
// refers to, unescaped, in order: url(…) and src("…") values, @import strings, and the strings
// of image-set(). The CSS Syntax tokenizer (tdewolff/parse) reads the text; nothing is
// resolved here.
func cssRefs(b []byte, add func(raw string)) {
	// Capped at its length: given room, NewInputBytes writes a NUL after the slice, into the
	// caller's buffer (the HTML tokenizer's, for a style attribute or element).
	l := css.NewLexer(parse.NewInputBytes(b[:len(b):len(b)]))
	var (
		importing bool // after @import: the next string is a stylesheet
		srcFunc   bool // after src(: the next string is a resource
		setDepth  int  // > 0 inside image-set(): the parenthesis depth there
	)
	for {
		tt, data := l.Next()
		switch tt {
		case css.ErrorToken:
			return
		case css.WhitespaceToken, css.CommentToken:
			continue
		case css.URLToken:
			if v, ok := urlTokenValue(data); ok {
				add(v)
			}
		case css.StringToken:
			if importing || srcFunc || setDepth == 1 {
				add(cssUnescape(data[1:len(data)-closingQuote(data)], true))
			}
		case css.AtKeywordToken:
			importing = strings.EqualFold(string(data), "@import")
			srcFunc = false
			continue
		case css.FunctionToken:
			name := strings.ToLower(cssUnescape(data[:len(data)-1], false))
			switch {
			case setDepth > 0:
				setDepth++
			case name == "image-set" || name == "-webkit-image-set":
				setDepth = 1
			}
			srcFunc = name == "src"
			importing = false
			continue
		case css.LeftParenthesisToken:
			if setDepth > 0 {
				setDepth++
			}
		case css.RightParenthesisToken:
			if setDepth > 0 {
				setDepth--
			}
		}
		importing, srcFunc = false, false
	}
}

// closingQuote is 1 when a string token ends with its quote, 0 when the input ended first.
func closingQuote(s []byte) int {
	if len(s) >= 2 && s[len(s)-1] == s[0] {
		return 1
	}
	return 0
}

// urlTokenValue is the URL inside a url(…) token, quoted or not, unescaped.
func urlTokenValue(tok []byte) (string, bool) {
	i := strings.IndexByte(string(tok), '(')
	if i < 0 {
		return "", false
	}
	v := tok[i+1:]
	if n := len(v); n > 0 && v[n-1] == ')' {
		v = v[:n-1]
	}
	s := strings.Trim(string(v), " \t\r\n\f")
	if len(s) > 0 && (s[0] == '"' || s[0] == '\'') {
		b := []byte(s)
		return cssUnescape(b[1:len(b)-closingQuote(b)], true), true
	}
	return cssUnescape([]byte(s), false), true
}

// cssUnescape undoes CSS escapes: a backslash and 1–6 hex digits (and one white space after
// them) is that code point, a backslash and a newline inside a string is nothing, a backslash
// and any other character is that character.
func cssUnescape(b []byte, inString bool) string {
	if !strings.ContainsRune(string(b), '\\') {
		return string(b)
	}
	var out strings.Builder
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out.WriteByte(c)
			continue
		}
		i++
		if i >= len(b) {
			break
		}
		j := i
		for j < len(b) && j-i < 6 && isHexDigit(b[j]) {
			j++
		}
		if j > i {
			n, _ := strconv.ParseUint(string(b[i:j]), 16, 32)
			r := rune(n)
			if r == 0 || r > utf8.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
				r = utf8.RuneError
			}
			out.WriteRune(r)
			if j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\f') {
				j++
			} else if j+1 < len(b) && b[j] == '\r' && b[j+1] == '\n' {
				j += 2
			} else if j < len(b) && b[j] == '\r' {
				j++
			}
			i = j - 1
			continue
		}
		switch c := b[i]; {
		case inString && (c == '\n' || c == '\f'):
		case inString && c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		default:
			out.WriteByte(c)
		}
	}
	return out.String()
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
