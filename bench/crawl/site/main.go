// Command site serves the crawl benchmark's loopback web: N origins of P pages each, every
// page linking to a few others and to a disallowed path, each origin with its own robots.txt.
// With -cdns C, C more origins serve the pages' requisites: each page embeds an image of its
// own and its origin's stylesheet and script, shared by all its pages; each stylesheet pulls a
// font and a background image from other CDN origins. It writes one seed URL per page origin
// to -seeds and serves until interrupted; then it prints the most requests it saw in flight at
// once on one origin (a polite crawler keeps it at 1).
//
// With -article, pages are shaped like news articles instead (article.go): inline CSS,
// navigation, 10–30 in-origin links in relative, absolute and fragment forms, a canonical
// link, 20–60 KB of varied text; half carry Last-Modified and every fourth origin answers
// Archive-Embargo: m. With -gzip as well, every page is sent with Content-Encoding: gzip.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// mostInFlight is the most requests any one origin was answering at once.
var mostInFlight atomic.Int32

// counted serves h and keeps mostInFlight.
func counted(h http.Handler) http.Handler {
	var n atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := n.Add(1)
		defer n.Add(-1)
		for m := mostInFlight.Load(); k > m && !mostInFlight.CompareAndSwap(m, k); m = mostInFlight.Load() {
		}
		h.ServeHTTP(w, r)
	})
}

func main() {
	origins := flag.Int("origins", 20, "origins (one listener each on 127.0.0.1)")
	pages := flag.Int("pages", 200, "pages per origin")
	seeds := flag.String("seeds", "seeds.txt", "file to write the seed URLs to")
	size := flag.Int("size", 4096, "approximate HTML bytes per page")
	links := flag.Int("links", 5, "links per page: page n links to pages n*links+1 … n*links+links")
	cdns := flag.Int("cdns", 0, "CDN origins serving the pages' requisites (0: pages embed nothing)")
	think := flag.Duration("think", 0, "time the server takes before answering a page (robots.txt aside)")
	article := flag.Bool("article", false, "article-like pages of 20–60 KB (-size and -links ignored; article.go)")
	gz := flag.Bool("gzip", false, "with -article: send every page with Content-Encoding: gzip")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	listen := func(h http.Handler) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		srv := &http.Server{Handler: counted(h)}
		go srv.Serve(ln)
		return "http://" + ln.Addr().String()
	}
	cdnURLs := make([]string, *cdns)
	for i := range cdnURLs {
		cdnURLs[i] = listen(cdnHandler(i, cdnURLs, *size))
	}
	var list strings.Builder
	for o := range *origins {
		var h http.Handler
		if *article {
			h = articleHandler(o, *pages, *think, *gz)
		} else {
			h = handler(o, *pages, *links, *size, *think, cdnURLs)
		}
		fmt.Fprintf(&list, "%s/\n", listen(h))
	}
	if err := os.WriteFile(*seeds, []byte(list.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "site: %d origins x %d pages; seeds in %s\n", *origins, *pages, *seeds)
	<-ctx.Done()
	fmt.Fprintf(os.Stderr, "site: at most %d requests in flight on one origin\n", mostInFlight.Load())
}

// handler serves origin o, each page after think: "/" and /p/0 … /p/{pages-1}; /private/ is disallowed by robots.txt.
func handler(o, pages, links, size int, think time.Duration, cdns []string) http.Handler {
	filler := bytes.Repeat([]byte("lorem ipsum dolor sit amet "), size/27)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if think > 0 && r.URL.Path != "/robots.txt" {
			time.Sleep(think)
		}
		switch {
		case r.URL.Path == "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
			return
		case r.URL.Path == "/":
			page(w, o, 0, pages, links, filler, cdns)
			return
		case strings.HasPrefix(r.URL.Path, "/p/"):
			if n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/")); err == nil && n >= 0 && n < pages {
				page(w, o, n, pages, links, filler, cdns)
				return
			}
		}
		http.NotFound(w, r)
	})
}

// page n of origin o links to pages n*links+1 … n*links+links (a tree that reaches every
// page) and to a disallowed path; with CDNs it embeds its image, its origin's stylesheet and script.
func page(w http.ResponseWriter, o, n, pages, links int, filler []byte, cdns []string) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!doctype html><html><head><title>page %d</title>\n", n)
	if c := len(cdns); c > 0 {
		fmt.Fprintf(&b, "<link rel=\"stylesheet\" href=\"%s/css/o%d.css\"><script src=\"%s/js/o%d.js\"></script>\n", cdns[o%c], o, cdns[(o+1)%c], o)
	}
	b.WriteString("</head><body>\n")
	if c := len(cdns); c > 0 {
		fmt.Fprintf(&b, "<img src=\"%s/img/o%d-p%d.png\" alt=\"\">\n", cdns[(o+n)%c], o, n)
	}
	for i := 1; i <= links && n*links+i < pages; i++ {
		fmt.Fprintf(&b, "<a href=\"/p/%d\">%d</a>\n", n*links+i, n*links+i)
	}
	fmt.Fprintf(&b, "<p><a href=\"/private/%d\">private</a></p>\n<p>%s</p></body></html>\n", n, filler)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Last-Modified", "Sun, 01 Nov 2026 00:00:00 GMT")
	w.Write(b.Bytes())
}

// cdnHandler serves CDN origin i: robots.txt, stylesheets (each pulling a font and a
// background image from the next CDN origins), scripts, fonts and images; any name is served.
func cdnHandler(i int, cdns []string, size int) http.Handler {
	blob := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, size/8)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
		case strings.HasPrefix(p, "/css/"):
			c := len(cdns)
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprintf(w, "@font-face{font-family:F;src:url(%s/font/f.woff2) format(\"woff2\")}\nbody{font-family:F;background:url(%s/img/bg%s.png)}\n",
				cdns[(i+1)%c], cdns[(i+2)%c], strings.TrimSuffix(strings.TrimPrefix(p, "/css/"), ".css"))
		case strings.HasPrefix(p, "/js/"):
			w.Header().Set("Content-Type", "text/javascript")
			w.Write([]byte("console.log(1);\n"))
		case strings.HasPrefix(p, "/img/"), strings.HasPrefix(p, "/font/"):
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(blob)
		default:
			http.NotFound(w, r)
		}
	})
}
