// Command make builds the old-form fixture archive of store/testdata/oldform (see ../README.md).
// It was run once, at the commit the README names, with the store and release code of that
// commit; run at a later commit it would write that commit's forms instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// origin is an IPv4 host with a port: its SURT key is one of those the change of form altered.
const origin = "http://127.0.0.1:8080"

func capture(path string, at time.Time, p embargo.Period, body string, headers ...string) store.Capture {
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: archivectl-fixture\r\n\r\n", path)
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
	for _, h := range headers {
		resp += h + "\r\n"
	}
	resp += fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	return store.Capture{URL: origin + path, Time: at, IP: "127.0.0.1", Request: []byte(req), Response: []byte(resp), Period: p}
}

func main() {
	out := flag.String("out", "", "data directory to create (must not exist)")
	flag.Parse()
	if *out == "" {
		log.Fatal("usage: make -out DIR")
	}
	if _, err := os.Stat(*out); err == nil {
		log.Fatalf("%s exists", *out)
	}
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	clock := t0
	s, err := store.Open(*out, store.Options{Logger: quiet, Now: func() time.Time { return clock }})
	if err != nil {
		log.Fatal(err)
	}
	robots := capture("/robots.txt", t0, embargo.None, "User-agent: *\nArchive-Embargo: w\nContent-Usage: train-ai=n\n")
	robots.Robots = true
	rs, err := s.Seal(ctx, []store.Capture{robots})
	if err != nil {
		log.Fatal(err)
	}
	// /news/?b=2&a=1: a week's embargo, Content-Usage, outlinks, released by the second pass.
	news := capture("/news/?b=2&a=1", t0.Add(time.Minute), embargo.Week, "<p>news</p>", "Content-Usage: train-ai=n")
	news.RobotsID, news.Rule = rs[0].ID, "2 archive-embargo w"
	news.UsageHeader, news.UsageRobots, news.Usage = []string{"train-ai=n"}, []string{"train-ai=n"}, []string{"train-ai=n"}
	news.Outlinks = []string{origin + "/about", origin + "/style.css"}
	// /style.css: a requisite of the page, no embargo, released by the first pass.
	css := capture("/style.css", t0.Add(2*time.Minute), embargo.None, "p{color:red}")
	css.RequisiteOf, css.EmbargoSource = origin+"/news/?b=2&a=1", "robots.txt"
	// /about: a quarter's embargo, still embargoed after both passes (a tombstone only).
	about := capture("/about", t0.Add(3*time.Minute), embargo.Quarter, "<p>about</p>",
		"Last-Modified: Sun, 01 Feb 2026 10:00:00 GMT")
	about.Sitemap, about.SitemapLastmod = origin+"/sitemap.xml", "2026-02-01"
	if _, err := s.Seal(ctx, []store.Capture{news, css, about}); err != nil {
		log.Fatal(err)
	}
	// A revisit of /style.css an hour later.
	clock = t0.Add(time.Hour)
	if _, err := s.Seal(ctx, []store.Capture{capture("/style.css", clock, embargo.None, "p{color:red}")}); err != nil {
		log.Fatal(err)
	}
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}
	r := release.New(*out, release.Options{Logger: quiet, Software: "archivectl-fixture"})
	for _, at := range []time.Time{t0.Add(2 * time.Hour), t0.Add(8 * 24 * time.Hour)} {
		sum, err := r.Pass(ctx, at)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("pass at %s: released %d, tombstoned %d, deferred %d\n", at.Format(time.RFC3339), sum.Released, sum.Tombstoned, sum.Deferred)
	}
}
