package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// words is the vocabulary of the articles' text.
var words = strings.Fields(`the of and to in a is that for it as was with be by on not he this are or his from at which
but have an they you were her she there been one all we their has would when if so no will more can who out up about into
than them only its time other new some could these two may first then do any like my now over such our man me even most
made after also did many before must through back years where much your way well down should because each just those
people how too little state good very make world still own see men work long get here between both life being under
never day same another know while last might us great old year off come since against go came right used take three
city council report market study water energy school health policy minister election court bank price company data
river museum festival season league coach player weather storm harbour railway bridge village library hospital budget`)

// articleHandler serves origin o's article-like pages, each after think: "/" (page 0) and
// /p/1 … /p/{pages-1}; /private/ is disallowed by robots.txt. Every fourth origin answers
// Archive-Embargo: m; even pages carry Last-Modified; with gz every page is gzip-encoded.
func articleHandler(o, pages int, think time.Duration, gz bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
			return
		}
		if think > 0 {
			time.Sleep(think)
		}
		n := -1
		if r.URL.Path == "/" {
			n = 0
		} else if s, ok := strings.CutPrefix(r.URL.Path, "/p/"); ok {
			if k, err := strconv.Atoi(s); err == nil && k > 0 && k < pages {
				n = k
			}
		}
		if n < 0 {
			http.NotFound(w, r)
			return
		}
		body := articlePage(r.Host, o, n, pages)
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		if n%2 == 0 {
			h.Set("Last-Modified", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(n)*time.Hour).Format(http.TimeFormat))
		}
		if o%4 == 0 {
			h.Set("Archive-Embargo", "m")
		}
		if gz {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
			zw.Write(body)
			zw.Close()
			body = b.Bytes()
			h.Set("Content-Encoding", "gzip")
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})
}

// articlePage is page n of origin o on host: 20–60 KB of HTML with a canonical link, an inline
// stylesheet, a navigation bar, and in its text links to its children n*5+1 … n*5+5 (a tree
// that reaches every page), to up to 17 related pages and to fragments of itself, in relative,
// root-relative, absolute and fragment forms (10–30 links a page), and one to a disallowed path.
func articlePage(host string, o, n, pages int) []byte {
	rng := rand.New(rand.NewPCG(uint64(o), uint64(n)))
	size := 20<<10 + rng.IntN(40<<10)
	self := "/"
	if n > 0 {
		self = fmt.Sprintf("/p/%d", n)
	}
	href := func(k, form int) string {
		switch form % 4 {
		case 0:
			return fmt.Sprintf("/p/%d", k)
		case 1:
			return fmt.Sprintf("../p/%d", k)
		case 2:
			return fmt.Sprintf("http://%s/p/%d", host, k)
		default:
			return fmt.Sprintf("/p/%d#section-%d", k, 1+k%3)
		}
	}
	var links []string // the text's links, spread over its paragraphs
	for i := 1; i <= 5 && n*5+i < pages; i++ {
		links = append(links, href(n*5+i, i+n))
	}
	for i := range rng.IntN(18) {
		links = append(links, href(1+rng.IntN(pages-1), i))
	}
	links = append(links, "#comments", "#section-1")
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s | Origin %d News</title>\n", title(rng), o)
	fmt.Fprintf(&b, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"description\" content=\"%s\">\n", sentence(rng))
	fmt.Fprintf(&b, "<link rel=\"canonical\" href=\"http://%s%s\">\n<style>\n", host, self)
	for i := range 40 {
		fmt.Fprintf(&b, ".c%d-%d { margin: %dpx %dpx; padding: 0 %dem; color: #%06x; font: %d%%/1.%d Georgia, serif; }\n", o, i, i%7, i%5, i%3, rng.IntN(1<<24), 80+i, i%9)
	}
	b.WriteString("body { max-width: 42em; margin: 0 auto; } nav ul { list-style: none; display: flex; } article h2 { font-size: 1.3em; }\n</style>\n</head>\n<body>\n")
	b.WriteString("<header><nav><ul><li><a href=\"/\">Home</a></li><li><a href=\"/p/1\">World</a></li><li><a href=\"/p/2\">Politics</a></li>")
	fmt.Fprintf(&b, "<li><a href=\"http://%s/p/3\">Business</a></li><li><a href=\"../p/4\">Science</a></li><li><a href=\"#top\">Top</a></li></ul></nav></header>\n", host)
	fmt.Fprintf(&b, "<main><article id=\"top\">\n<h1>%s</h1>\n<p class=\"byline\">By %s</p>\n", title(rng), title(rng))
	for sec := 1; b.Len() < size-600 || len(links) > 0; sec++ {
		fmt.Fprintf(&b, "<h2 id=\"section-%d\">%s</h2>\n", sec, title(rng))
		for range 3 {
			fmt.Fprintf(&b, "<p class=\"c%d-%d\">", o, rng.IntN(40))
			for s := range 4 + rng.IntN(4) {
				t := sentence(rng)
				if s == 2 && len(links) > 0 {
					w := strings.IndexByte(t, ' ')
					fmt.Fprintf(&b, "<a href=\"%s\">%s</a>%s ", links[0], t[:w], t[w:])
					links = links[1:]
				} else if s == 1 {
					fmt.Fprintf(&b, "<em>%s</em> ", t)
				} else {
					b.WriteString(t + " ")
				}
			}
			b.WriteString("</p>\n")
		}
	}
	fmt.Fprintf(&b, "</article>\n<section id=\"comments\"><h2>Comments</h2><p>%s</p></section></main>\n", sentence(rng))
	fmt.Fprintf(&b, "<footer><p><a href=\"/private/%d\">Edit</a> · <a href=\"/\">Home</a></p></footer>\n</body>\n</html>\n", n)
	return b.Bytes()
}

// sentence is 8–20 words of text, capitalised, with a full stop.
func sentence(rng *rand.Rand) string {
	var s strings.Builder
	for i := range 8 + rng.IntN(13) {
		w := words[rng.IntN(len(words))]
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			s.WriteByte(' ')
		}
		s.WriteString(w)
	}
	s.WriteByte('.')
	return s.String()
}

// title is 3–7 capitalised words.
func title(rng *rand.Rand) string {
	f := strings.Fields(sentence(rng))
	f = f[:3+rng.IntN(5)]
	for i, w := range f {
		f[i] = strings.ToUpper(w[:1]) + strings.TrimSuffix(w[1:], ".")
	}
	return strings.Join(f, " ")
}
