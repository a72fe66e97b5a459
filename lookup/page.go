package lookup

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/export"
	"github.com/archivectl/archivectl/public"
)

//go:embed templates/page.html
var templates embed.FS

//go:embed static
var static embed.FS

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{"noun": noun}).ParseFS(templates, "templates/page.html"))

// pageData is what the page template shows. One of Captures, Browse or (with neither) the
// archive at a glance fills the page under the search box and any notice.
type pageData struct {
	Query        string
	Prefix       bool // the search box asks for everything under the URL
	Error        string
	Shorter      []link // prefix views to try when a URL was never made public
	Captures     []pageCapture
	Under        link // the prefix view of the captures' directory
	Browse       *browseData
	Timeline     *timelineData // ?view=timeline: every capture of the URL by year, month and day (timeline.go)
	Day          *dayData      // ?day=: the captures whose release day it is (day.go)
	Glance       glance
	Home         bool          // the archive at a glance is shown: its own <h1>
	Wide         template.HTML // the release calendar, weeks as columns
	Tall         template.HTML // the same, weeks as rows
	Upcoming     []upcomingDay
	Recent       []recentRelease
	Ahead        *aheadNote // the last pass ran ahead of its machine's clock; nil when not
	TimelineHref string     // the timeline of the URL looked up
	Now          string
	NowISO       string
	Generation   int64
}

// link is one link the page offers.
type link struct{ Href, Text string }

// glance is the archive in numbers.
type glance struct {
	Released, Embargoed        int
	Due                        int // of Embargoed: release day before today, waiting for the next pass
	NextRelease, NextCountdown string
	LastPass                   string
	NextISO, LastPassISO       string // for <time datetime>
	Generation                 int64
}

// upcomingDay is one release day in the list of next releases.
type upcomingDay struct {
	Date, When string
	Href       string // the day view, when the day is one
	Datetime   string // YYYY-MM-DD
	Since      bool   // the captures due since Date, not of Date alone
	Captures   int
}

// recentRelease is one capture in the list of the most recent releases.
type recentRelease struct {
	URL, Href, ReleasedAt, ReleasedISO, Site, SiteHref string
}

// pageCapture is one capture as the page shows it.
type pageCapture struct {
	URL, Timestamp, State, ReleaseAt, Countdown, Digest, Mime string
	TimeISO, ReleaseISO                                       string // RFC 3339, for <time datetime>
	Anchor                                                    string // the card's id, for links from the timeline
	EmbargoEnded                                              bool   // its release time has passed (released, or due)
	PublicSince, PublicSinceISO                               string // the pass that released it, when the release log's tail says
	EmbargoSource                                             string // what set the embargo, in words; "" when not recorded
	Status                                                    int
	Released, Revisit                                         bool
	Due                                                       bool // under embargo, its release time passed: the next pass publishes it
	Headers                                                   [][2]string
	Usage                                                     []usageLine
	RawUsage                                                  []string
	RecordLink, PayloadLink                                   string
	ReplayLink                                                string // the page in ReplayWeb.page; "" when not a page or replay is off
	Withheld                                                  string // the requisites still under embargo, in words; "" when none
	WithheldISO                                               string // the latest release time among them, for <time datetime>
	WithheldUntil                                             string
}

// handlePage answers GET /: the search box; then the captures of ?url= (state, release date and
// countdown, tombstone headers and digest, Content-Usage), or with matchType=prefix a browsable
// list of what lies below it, or else the archive at a glance: counts, next releases as a list and
// a calendar, and the most recent releases. Plain server-rendered HTML; it needs no JavaScript.
// Every state shown is what the public side holds as the last pass left it: a capture with a
// released line is released, whatever the server's clock says. The clock only words countdowns
// and tells the tombstones whose release time has passed (due, waiting for the next pass).
func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	ix := s.ix.Load()
	now := s.now()
	d := pageData{Now: now.UTC().Format("Mon 2 Jan 2006 15:04 UTC"), NowISO: now.UTC().Format(time.RFC3339), Generation: ix.generation, Ahead: aheadInWords(ix.state, now)}
	code := http.StatusOK
	mark := map[time.Time]bool{}
	v, err := queryValues(r.URL.RawQuery)
	switch {
	case err != nil:
		d.Query, d.Error, code = queryParam(r.URL.RawQuery, "url"), err.Error(), http.StatusBadRequest
	case v.Has("day"):
		if d.Day, err = s.dayPage(ix, v, now); err != nil {
			d.Day = nil
			d.Error, code = err.Error(), http.StatusBadRequest
			if errors.Is(err, errIndexRead) {
				s.log.Error("public index read failed", "err", err)
				code = http.StatusInternalServerError
			}
		}
	case strings.TrimSpace(v.Get("url")) != "":
		d.Query, d.Prefix = v.Get("url"), v.Get("matchType") == "prefix"
		q, err := parseQuery(r)
		var cs []capture
		switch {
		case err != nil:
			d.Error, code = err.Error(), http.StatusBadRequest
		case q.prefix:
			share := s.share(r) // the page's captures, held until it is rendered (held.go)
			defer share.release()
			d.Browse, err = s.browse(ix, q, share, v.Get("limit") == "", now)
			share.built()
			switch {
			case errors.Is(err, errBusy):
				d.Browse = nil
				s.rejected.WithLabelValues("page").Inc()
				w.Header().Set("Retry-After", busyRetryAfter)
				d.Error, code = errBusy.Error(), http.StatusServiceUnavailable
			case errors.Is(err, errClientGone):
				return
			case err != nil:
				d.Browse = nil
				s.log.Error("public index read failed", "err", err)
				d.Error, code = err.Error(), http.StatusInternalServerError
			}
		default:
			if cs, err = ix.exact(q.key); err != nil {
				s.log.Error("public index read failed", "err", err)
				d.Error, code = err.Error(), http.StatusInternalServerError
				break
			}
			cs = markDue(cs, now)
			if len(cs) == 0 {
				d.Error, code = q.raw+" has never been made public by this archive. Check the URL, or browse what it holds nearby:", http.StatusNotFound
				d.Shorter = shorter(q.raw)
			}
			names, passes := anchors(cs), s.passes(ix)
			replays := 0
			for i := range cs {
				c := &cs[i]
				p := toPage(c, now)
				p.Anchor = names[i]
				passes.fill(&p, c)
				if c.released && export.IsHTML(c.mime) && export.IsWeb(c.url()) && s.opt.ReplayURL != ReplayOff {
					s.replayLinks(r, ix, q.key, c, &p, replays < maxReplayNotes)
					replays++
				}
				d.Captures = append(d.Captures, p)
				if !c.released {
					mark[time.Unix(0, c.releaseAt).UTC().Truncate(24*time.Hour)] = true
				}
			}
			d.TimelineHref = "/?view=timeline&url=" + url.QueryEscape(q.raw)
			if v.Get("view") == "timeline" && len(cs) > 0 {
				d.Timeline = timeline(q.raw, cs, d.Captures)
				d.Captures = nil
			}
			if len(cs) > 0 {
				if dirs := shorter(cs[0].url()); len(dirs) > 0 {
					d.Under = dirs[0]
				}
			}
		}
	}
	if d.Browse == nil && d.Timeline == nil && d.Day == nil {
		s.home(&d, ix, now, mark)
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, d); err != nil {
		s.log.Error("page not rendered", "err", err)
		http.Error(w, "internal error: the page cannot be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// home fills in the archive at a glance, the next releases and the most recent ones.
func (s *Server) home(d *pageData, ix *index, now time.Time, mark map[time.Time]bool) {
	g := glance{Released: ix.released, Embargoed: ix.embargoed, Due: ix.overdue(now), Generation: ix.generation}
	if t := ix.state.LastPass; !t.IsZero() {
		g.LastPass, g.LastPassISO = t.UTC().Format("2 Jan 2006 15:04 UTC"), t.UTC().Format(time.RFC3339)
	}
	days := ix.upcoming(now)
	today := now.UTC().Truncate(24 * time.Hour)
	switch t := ix.state.NextRelease; {
	case t != nil:
		g.NextRelease, g.NextCountdown, g.NextISO = t.UTC().Format("2 Jan 2006 15:04 UTC"), countdown(t.Sub(now)), t.UTC().Format(time.RFC3339)
	case len(days) > 0: // a state.json without next_release: the first release day will do
		g.NextRelease, g.NextCountdown, g.NextISO = days[0].day.Format("Mon 2 Jan 2006"), dayWhen(days[0].day, today), days[0].day.Format(time.DateOnly)
	}
	d.Glance = g
	d.Home = d.Error == "" && len(d.Captures) == 0
	d.Wide = template.HTML(calendarSVG(ix.days, now, mark, true)) // built from numbers and escaped text only
	d.Tall = template.HTML(calendarSVG(ix.days, now, mark, false))
	if g.Due > 0 { // release days gone by: listed first, until a pass releases them
		first := ix.days[0].day
		d.Upcoming = append(d.Upcoming, upcomingDay{Since: true, Date: first.Format("Mon 2 Jan 2006"), Datetime: first.Format(time.DateOnly),
			Href: dayHref(first), When: "due: public after the next release pass", Captures: g.Due})
	}
	for _, day := range days[:min(len(days), 8-len(d.Upcoming))] {
		d.Upcoming = append(d.Upcoming, upcomingDay{Date: day.day.Format("Mon 2 Jan 2006"), When: dayWhen(day.day, today), Captures: day.count,
			Href: dayHref(day.day), Datetime: day.day.Format(time.DateOnly)})
	}
	if len(d.Captures) > 0 {
		return
	}
	for _, e := range s.recentReleases(ix, 8) {
		r := recentRelease{URL: e.URL, Href: "/?url=" + url.QueryEscape(e.URL), ReleasedAt: e.ReleaseAt.UTC().Format("2 Jan 2006 15:04"),
			ReleasedISO: e.ReleaseAt.UTC().Format(time.RFC3339)}
		if u, err := url.Parse(e.URL); err == nil && u.Host != "" {
			r.Site, r.SiteHref = u.Host, "/?matchType=prefix&url="+url.QueryEscape(u.Scheme+"://"+u.Host+"/")
		}
		d.Recent = append(d.Recent, r)
	}
}

// dayWhen says how far a day lies from today: "today", "tomorrow", "in 5 days".
func dayWhen(day, today time.Time) string {
	switch n := int(day.Sub(today) / (24 * time.Hour)); n {
	case 0:
		return "today"
	case 1:
		return "tomorrow"
	default:
		return "in " + plural(n, "day")
	}
}

// toPage renders one capture (due ones marked by markDue) for the page; now words the countdown.
func toPage(c *capture, now time.Time) pageCapture {
	p := pageCapture{
		URL: c.url(), Timestamp: humanTime(c.time), State: public.StateEmbargoed, ReleaseAt: humanTime(c.releaseAt),
		Digest: c.digest(), Mime: c.mime, Status: int(c.status), Released: c.released, Revisit: c.revisit,
		Usage: usageInWords(c.usage), RawUsage: c.contentUsage(), EmbargoSource: sourceInWords(c.embargoSource), Due: c.due,
		TimeISO: isoTime(c.time), ReleaseISO: isoTime(c.releaseAt), EmbargoEnded: c.released || c.due,
	}
	if h := c.headers(); h != "" {
		_ = json.Unmarshal([]byte(h), &p.Headers) // checked at load to be a JSON array; a bad one shows none
	}
	if c.released {
		p.State, p.Countdown = public.StateReleased, "released"
		p.RecordLink = recordPath(c.url(), c.time)
		p.PayloadLink = p.RecordLink + "&format=payload"
	} else {
		p.Countdown = countdown(time.Unix(0, c.releaseAt).Sub(now))
	}
	return p
}

// aheadNote is the page's one line saying that the last pass ran with a now ahead of the clock
// of the machine that ran it (state.json's ahead_of_clock): the pass's time, as a <time>, and by
// how much it is ahead of this server's clock ("" within public.ClockSlack).
type aheadNote struct {
	LastPass, LastPassISO, By string
}

// aheadInWords is the aheadNote of st at now; nil when its last pass did not run ahead.
func aheadInWords(st public.Status, now time.Time) *aheadNote {
	if !st.AheadOfClock {
		return nil
	}
	n := &aheadNote{LastPass: st.LastPass.UTC().Format("2 Jan 2006 15:04 UTC"), LastPassISO: st.LastPass.UTC().Format(time.RFC3339)}
	if d := st.LastPass.Sub(now); d > public.ClockSlack {
		n.By = strings.TrimPrefix(countdown(d), "in ")
	}
	return n
}

// sourceInWords says what set a capture's embargo: a robots.txt rule or the Archive-Embargo
// response header field; "" when the archive did not record it.
func sourceInWords(source string) string {
	switch source {
	case "":
		return ""
	case "robots.txt":
		return "embargo set by robots.txt"
	case "header":
		return "embargo set by the Archive-Embargo response header"
	}
	return "embargo set by " + source
}

// queryParam returns the raw (undecoded) value of a parameter, to show it back in the search box.
func queryParam(raw, name string) string {
	for pair := range strings.SplitSeq(raw, "&") {
		if k, v, _ := strings.Cut(pair, "="); k == name {
			return v
		}
	}
	return ""
}

// isoTime renders Unix nanoseconds for a <time datetime>: RFC 3339 UTC, to the second.
func isoTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339) }

// humanTime renders Unix nanoseconds for a person: UTC, to the second.
func humanTime(ns int64) string { return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05 UTC") }

// countdown says how long until a release, to the minute; a past release awaits the next pass.
func countdown(d time.Duration) string {
	if d <= 0 {
		return "due now: public after the next release pass"
	}
	d = d.Round(time.Minute)
	days, hours, mins := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days > 0:
		return fmt.Sprintf("in %s %s", plural(days, "day"), plural(hours, "hour"))
	case hours > 0:
		return fmt.Sprintf("in %s %s", plural(hours, "hour"), plural(mins, "minute"))
	}
	return "in " + plural(max(mins, 1), "minute")
}

// plural writes n and a noun that agrees with it.
func plural(n int, word string) string { return strconv.Itoa(n) + " " + noun(n, word) }

// noun is word in the number n asks for: "capture" for one, "captures" otherwise.
func noun(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// handleStatic serves the page's stylesheet and other files under static/; never a directory listing.
func handleStatic(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	if fi, err := fs.Stat(static, name); err != nil || fi.IsDir() {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such file %s", r.URL.Path))
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.ServeFileFS(w, r, static, name)
}
