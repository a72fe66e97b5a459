// Command site serves the crawl benchmark's loopback web: N origins of P pages each, every
// page linking to a few others and to a disallowed path, each origin with its own robots.txt.
// It writes one seed URL per origin to -seeds and serves until interrupted.
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
	"syscall"
)

func main() {
	origins := flag.Int("origins", 20, "origins (one listener each on 127.0.0.1)")
	pages := flag.Int("pages", 200, "pages per origin")
	seeds := flag.String("seeds", "seeds.txt", "file to write the seed URLs to")
	size := flag.Int("size", 4096, "approximate HTML bytes per page")
	links := flag.Int("links", 5, "links per page: page n links to pages n*links+1 … n*links+links")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var list strings.Builder
	for range *origins {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		srv := &http.Server{Handler: handler(*pages, *links, *size)}
		go srv.Serve(ln)
		defer srv.Close()
		fmt.Fprintf(&list, "http://%s/\n", ln.Addr())
	}
	if err := os.WriteFile(*seeds, []byte(list.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "site: %d origins x %d pages; seeds in %s\n", *origins, *pages, *seeds)
	<-ctx.Done()
}

// handler serves one origin: "/" and /p/0 … /p/{pages-1}; /private/ is disallowed by robots.txt.
func handler(pages, links, size int) http.Handler {
	filler := bytes.Repeat([]byte("lorem ipsum dolor sit amet "), size/27)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
			return
		case r.URL.Path == "/":
			page(w, 0, pages, links, filler)
			return
		case strings.HasPrefix(r.URL.Path, "/p/"):
			if n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/")); err == nil && n >= 0 && n < pages {
				page(w, n, pages, links, filler)
				return
			}
		}
		http.NotFound(w, r)
	})
}

// page n links to pages n*links+1 … n*links+links (a tree
// that reaches every page) and to a disallowed path.
func page(w http.ResponseWriter, n, pages, links int, filler []byte) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!doctype html><html><head><title>page %d</title></head><body>\n", n)
	for i := 1; i <= links && n*links+i < pages; i++ {
		fmt.Fprintf(&b, "<a href=\"/p/%d\">%d</a>\n", n*links+i, n*links+i)
	}
	fmt.Fprintf(&b, "<p><a href=\"/private/%d\">private</a></p>\n<p>%s</p></body></html>\n", n, filler)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Last-Modified", "Sun, 01 Nov 2026 00:00:00 GMT")
	w.Write(b.Bytes())
}
