// Command make builds the schema-1 fixture archive of store/testdata/v1 (see ../README.md). It was
// run once, at the commit the README names, with the store and release code of that commit; run
// at a later commit it would write that commit's index schema instead.
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

func capture(url, path string, at time.Time, p embargo.Period, body string, headers ...string) store.Capture {
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: fixture.example\r\nUser-Agent: archivectl-fixture\r\n\r\n", path)
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
	for _, h := range headers {
		resp += h + "\r\n"
	}
	resp += fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	return store.Capture{URL: url, Time: at, IP: "127.0.0.1", Request: []byte(req), Response: []byte(resp), Period: p}
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
	robots := capture("https://fixture.example/robots.txt", "/robots.txt", t0, embargo.None,
		"User-agent: *\nArchive-Embargo: w\nContent-Usage: train-ai=n\n")
	robots.Robots = true
	rs, err := s.Seal(ctx, []store.Capture{robots})
	if err != nil {
		log.Fatal(err)
	}
	a := capture("https://fixture.example/a", "/a", t0.Add(time.Minute), embargo.Week, "<p>page a</p>")
	a.RobotsID, a.Rule, a.Usage, a.UsageRobots = rs[0].ID, "2 archive-embargo w", []string{"train-ai=n"}, []string{"train-ai=n"}
	b := capture("https://fixture.example/b", "/b", t0.Add(2*time.Minute), embargo.None, "<p>page b</p>",
		"Content-Usage: search=y")
	b.UsageHeader, b.Usage = []string{"search=y"}, []string{"search=y"}
	c := capture("https://fixture.example/c?q=1", "/c?q=1", t0.Add(3*time.Minute), embargo.Quarter, "<p>page c</p>",
		"Last-Modified: Sun, 01 Feb 2026 10:00:00 GMT")
	d := capture("https://fixture.example/d", "/d", t0.Add(4*time.Minute), embargo.Month, "")
	if _, err := s.Seal(ctx, []store.Capture{a, b, c, d}); err != nil {
		log.Fatal(err)
	}
	// A revisit of /a (same payload, an hour later), sealed in a batch of its own.
	clock = t0.Add(time.Hour)
	a2 := capture("https://fixture.example/a", "/a", t0.Add(time.Hour), embargo.Week, "<p>page a</p>")
	if _, err := s.Seal(ctx, []store.Capture{a2}); err != nil {
		log.Fatal(err)
	}
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}
	// Pass 1 releases robots.txt and /b and tombstones the rest; pass 2, a week on, releases /a and its revisit.
	r := release.New(*out, release.Options{Logger: quiet, Software: "archivectl-fixture"})
	for _, at := range []time.Time{t0.Add(2 * time.Hour), t0.Add(8 * 24 * time.Hour)} {
		sum, err := r.Pass(ctx, at)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("pass at %s: released %d, tombstoned %d, deferred %d\n", at.Format(time.RFC3339), sum.Released, sum.Tombstoned, sum.Deferred)
	}
	// One capture sealed after the passes stays Sealed (no tombstone yet).
	clock = t0.Add(9 * 24 * time.Hour)
	s, err = store.Open(*out, store.Options{Logger: quiet, Now: func() time.Time { return clock }})
	if err != nil {
		log.Fatal(err)
	}
	e := capture("https://fixture.example/e", "/e", clock, embargo.Quarter, "<p>page e</p>")
	if _, err := s.Seal(ctx, []store.Capture{e}); err != nil {
		log.Fatal(err)
	}
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}
}
