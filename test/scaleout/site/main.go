// Command site serves the scale-out test's loopback web: N origins of P pages each, origin i
// asking in robots.txt for no embargo, a week, a month or a quarter (i mod 4), and disallowing
// /private/. Every body holds a marker, BODY-o<i>-p<j>, that the checks look for where no
// embargoed byte may be. The home page of origin i embeds two images of origin i+1 (mod N):
// /img/<i>.png, and /private/<i>.png, which its robots.txt disallows; and a stylesheet of
// origin i+2, /css/<i>.css, which embeds two background images of its own origin: /bg/<i>.png,
// and /private/bg-<i>.png, disallowed.
// Each request takes -latency, so that a crawl lasts long enough to be killed. It writes the
// seed URLs (one per origin, in order) to DIR/seeds.txt and logs every request as
// "ORIGIN PATH USER-AGENT" to DIR/site.log, and serves until interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Policies are the robots.txt Archive-Embargo values of origins 0, 1, 2, 3 (mod 4); "" is none.
var Policies = []string{"", "w", "m", "q"}

func main() {
	origins := flag.Int("origins", 12, "origins, one listener each on 127.0.0.1")
	pages := flag.Int("pages", 8, "pages per origin besides /")
	dir := flag.String("dir", ".", "where seeds.txt and site.log go")
	latency := flag.Duration("latency", 0, "time each answer takes")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf, err := os.Create(filepath.Join(*dir, "site.log"))
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	var seeds strings.Builder
	lns := make([]net.Listener, *origins)
	urls := make([]string, *origins)
	for o := range lns {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		lns[o], urls[o] = ln, "http://"+ln.Addr().String()
		fmt.Fprintf(&seeds, "%s/\n", urls[o])
	}
	for o, ln := range lns {
		origin, next, second := urls[o], urls[(o+1)%len(urls)], urls[(o+2)%len(urls)]
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			fmt.Fprintf(logf, "%s %s %s\n", origin, r.URL.Path, strings.ReplaceAll(r.UserAgent(), " ", "_"))
			mu.Unlock()
			time.Sleep(*latency)
			serve(w, r, o, *pages, next, second)
		})
		go (&http.Server{Handler: h}).Serve(ln)
	}
	if err := os.WriteFile(filepath.Join(*dir, "seeds.txt"), []byte(seeds.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	<-ctx.Done()
	mu.Lock()
	logf.Close()
}

// resources are what home pages embed, by the first segment of their path: the path's form
// (the number is the embedding origin's), their media type and their body (of origin o, for
// the embedding origin). A stylesheet embeds two background images of its own origin.
var resources = map[string]struct{ path, mime, body string }{
	"/img/": {"/img/%d.png", "image/png", "IMG-o%d-from%d<"},
	"/css/": {"/css/%d.css", "text/css", "/* CSS-o%d-from%d */\nbody { background: url(/bg/%[2]d.png) }\nh1 { background: url(/private/bg-%[2]d.png) }\n"},
	"/bg/":  {"/bg/%d.png", "image/png", "BG-o%d-from%d<"},
}

func serve(w http.ResponseWriter, r *http.Request, o, pages int, next, second string) {
	var page, from int
	switch {
	case r.URL.Path == "/robots.txt":
		fmt.Fprintf(w, "User-agent: *\nDisallow: /private/\nAllow: /\n")
		if p := Policies[o%len(Policies)]; p != "" {
			fmt.Fprintf(w, "Archive-Embargo: %s\n", p)
		}
		return
	case r.URL.Path == "/":
		page = -1
	case strings.HasPrefix(r.URL.Path, "/img/"), strings.HasPrefix(r.URL.Path, "/css/"), strings.HasPrefix(r.URL.Path, "/bg/"):
		res := resources[r.URL.Path[:strings.Index(r.URL.Path[1:], "/")+2]]
		if _, err := fmt.Sscanf(r.URL.Path, res.path, &from); err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", res.mime)
		fmt.Fprintf(w, res.body, o, from)
		return
	default:
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &page); err != nil || page < 0 || page >= pages {
			http.NotFound(w, r)
			return
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><head>")
	if page < 0 {
		fmt.Fprintf(w, `<link rel="stylesheet" href="%s/css/%d.css">`, second, o)
	}
	fmt.Fprintf(w, "</head><body><h1>origin %d page %d</h1><p>BODY-o%d-p%d</p>", o, page, o, page)
	if page < 0 {
		fmt.Fprintf(w, `<img src="%[1]s/img/%[2]d.png"><img src="%[1]s/private/%[2]d.png">`, next, o)
		for j := range pages {
			fmt.Fprintf(w, `<a href="/p/%d">%d</a> `, j, j)
		}
	}
	fmt.Fprintf(w, "<p>%s</p></body></html>\n", strings.Repeat("filler text of the scale-out site ", 40))
}
