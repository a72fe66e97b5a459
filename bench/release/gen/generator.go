package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/store"
)

// generator makes the captures of a year of crawling 1,000 hosts, evenly over time: each host's
// robots.txt first (never embargoed), then pages, host after host in visits of up to 200 pages as
// a crawler works through one origin's queue, a tenth of them recrawls of a page the visit's host
// served before (nine in ten with the same body, so revisits), with a mix of embargo periods,
// Last-Modified dates and Content-Usage headers.
type generator struct {
	rng   *rand.Rand
	n, i  int
	pages int // pages made so far
	hosts int
	visit int // new pages per visit to a host
}

func newGenerator(n int, seed uint64) *generator {
	hosts := min(1000, max(1, n/10))
	return &generator{rng: rand.New(rand.NewPCG(seed, 0x5eed)), n: n, hosts: hosts, visit: max(1, min(200, n/hosts/4))}
}

// hostOf is the host that serves a page.
func (g *generator) hostOf(page int) int { return page / g.visit % g.hosts }

// recrawl picks a page the host of the current visit served before: from an earlier visit, or
// earlier in this one; ok is false when it has served none.
func (g *generator) recrawl() (page int, ok bool) {
	block := g.pages / g.visit
	if block >= g.hosts {
		earlier := block - g.hosts*(1+g.rng.IntN(block/g.hosts))
		return earlier*g.visit + g.rng.IntN(g.visit), true
	}
	if served := g.pages - block*g.visit; served > 0 {
		return block*g.visit + g.rng.IntN(served), true
	}
	return 0, false
}

func (g *generator) batch(size int) []store.Capture {
	caps := make([]store.Capture, 0, size)
	for range size {
		caps = append(caps, g.next())
	}
	return caps
}

var periods = []embargo.Period{embargo.None, embargo.None, embargo.Week, embargo.Month, embargo.Quarter}

func (g *generator) next() store.Capture {
	at := start.Add(time.Duration(int64(year) / int64(g.n) * int64(g.i)))
	g.i++
	if g.i <= g.hosts {
		host := fmt.Sprintf("site%d.example", g.i-1)
		c := capture("https://"+host+"/robots.txt", host, "/robots.txt", at, "User-agent: *\nArchive-Embargo: w\nAllow: /\n", nil)
		c.Robots = true
		return c
	}
	page, version, again := g.pages, 0, false
	if g.pages > 100 && g.rng.IntN(10) == 0 {
		page, again = g.recrawl()
	}
	if again {
		if g.rng.IntN(10) == 0 {
			version = 1 + g.rng.IntN(3)
		}
	} else {
		page = g.pages
		g.pages++
	}
	host := fmt.Sprintf("site%d.example", g.hostOf(page))
	path := fmt.Sprintf("/section%d/page%d.html", page%17, page)
	var headers []string
	if g.rng.IntN(10) < 3 {
		lm := at.Add(-time.Duration(g.rng.Int64N(int64(400 * 24 * time.Hour)))).Truncate(time.Second)
		headers = append(headers, "Last-Modified: "+lm.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT"))
	}
	if g.rng.IntN(10) == 0 {
		headers = append(headers, "Content-Usage: train-ai=n")
	}
	c := capture("https://"+host+path, host, path, at, fmt.Sprintf("<html><p>page %d version %d</p></html>", page, version), headers)
	c.Period = periods[(page*7+version)%len(periods)]
	c.Rule = fmt.Sprintf("2 archive-embargo %s", c.Period)
	return c
}

func capture(url, host, path string, at time.Time, body string, headers []string) store.Capture {
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: archivectl-bench\r\n\r\n"
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nServer: bench\r\n"
	for _, h := range headers {
		resp += h + "\r\n"
	}
	resp += fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	return store.Capture{URL: url, Time: at, IP: "127.0.0.1", Request: []byte(req), Response: []byte(resp)}
}
