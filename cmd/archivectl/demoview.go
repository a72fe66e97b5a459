package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
)

// demoViewDays is the pass whose public side the demo serves: by then the week's and the
// month's embargoes have ended and the quarter's stand, so the page shows both states. The
// passes after it still run (the demo releases everything and verifies it), but the page shows
// the public side as this pass left it, with its clock at this pass: nothing is shown released
// before its release time, and nothing released is shown embargoed.
const demoViewDays = 32

// demoViewDir is where, inside the demo's data directory, that public side is kept.
const demoViewDir = "public-at-32-days"

// keepView copies the public side as the pass at days left it, when it is the pass the page shows.
func (d *demo) keepView(days int, at time.Time) error {
	if days != demoViewDays {
		return nil
	}
	dir := filepath.Join(d.cfg.Data, demoViewDir)
	if err := os.CopyFS(dir, os.DirFS(layout.Public(d.cfg.Data))); err != nil {
		return fmt.Errorf("keep the public side of the pass at now + %d days: %w", days, err)
	}
	d.view, d.viewAt = dir, at
	return nil
}

// viewCaptures returns a page of the view to open first for each state: an embargoed capture
// (the soonest to come out) and a released one (the last whose embargo ended), HTML pages
// preferred, robots.txt never.
func viewCaptures(dir string) (embargoed, released string, err error) {
	lines, err := publicLines(dir) // each state ordered by release time
	if err != nil {
		return "", "", err
	}
	var emb, rel *public.Line
	better := func(l, than *public.Line, later bool) bool {
		lh, th := strings.HasPrefix(l.Mime, "text/html"), strings.HasPrefix(than.Mime, "text/html")
		return lh && !th || lh == th && later
	}
	for i := range lines {
		l := &lines[i]
		switch {
		case strings.HasSuffix(l.URL, "/robots.txt"):
		case l.State != public.StateReleased && (emb == nil || better(l, emb, false)):
			emb = l
		case l.State == public.StateReleased && (rel == nil || better(l, rel, true)):
			rel = l
		}
	}
	if emb != nil {
		embargoed = emb.URL
	}
	if rel != nil {
		released = rel.URL
	}
	return embargoed, released, nil
}

// printView tells where the page is and which captures to open first.
func (d *demo) printView(addr string) {
	fmt.Fprintf(d.out, "\n== Lookup page: http://%s/\n", addr)
	fmt.Fprintf(d.out, "  It shows the public side as the pass at now + %d days left it, its clock at that pass (%s):\n",
		demoViewDays, d.viewAt.Format("2006-01-02 15:04"))
	fmt.Fprintf(d.out, "  the week's and the month's embargoes have ended, the quarter's stand. Ctrl-C stops it.\n")
	emb, rel, err := viewCaptures(d.view)
	if err != nil {
		d.log.Warn("no captures to suggest", "err", err)
		return
	}
	for _, c := range []struct{ what, url string }{{"an embargoed capture:", emb}, {"a released capture:", rel}} {
		if c.url != "" {
			fmt.Fprintf(d.out, "  %-22s http://%s/?url=%s\n", c.what, addr, url.QueryEscape(c.url))
		}
	}
}
