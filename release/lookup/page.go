package lookup

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/release/public"
)

//go:embed templates/page.html
var templates embed.FS

//go:embed static
var static embed.FS

var pageTemplate = template.Must(template.ParseFS(templates, "templates/page.html"))

// pageData is what the page template shows.
type pageData struct {
	Query      string
	Error      string
	Captures   []pageCapture
	Calendar   template.HTML
	Upcoming   []dayJSON
	Released   int
	Embargoed  int
	Generation int64
	LastPass   string
	Now        string
}

// pageCapture is one capture as the page shows it.
type pageCapture struct {
	URL, Timestamp, State, ReleaseAt, Countdown, Digest, Mime string
	Status                                                    int
	Released, Revisit                                         bool
	Headers                                                   [][2]string
	Usage                                                     []usageLine
	RawUsage                                                  []string
	RecordLink, PayloadLink                                   string
}

// handlePage answers GET /: the search box, the captures of ?url= with their state, release date
// and countdown, tombstone headers and digest, Content-Usage in words, and the release calendar.
// It is plain server-rendered HTML and needs no JavaScript.
func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	ix := s.ix.Load()
	now := s.now()
	d := pageData{Released: ix.released, Embargoed: ix.embargoed, Generation: ix.generation, Now: now.UTC().Format(time.RFC3339)}
	if t := ix.state.LastPass; !t.IsZero() {
		d.LastPass = t.UTC().Format(time.RFC3339)
	}
	code := http.StatusOK
	mark := map[time.Time]bool{}
	if strings.TrimSpace(r.URL.Query().Get("url")) != "" {
		d.Query = r.URL.Query().Get("url")
		q, err := parseQuery(r)
		var cs []capture
		var ierr error
		if err == nil {
			cs, ierr = ix.exact(q.key)
		}
		switch {
		case err != nil:
			d.Error, code = err.Error(), http.StatusBadRequest
		case ierr != nil:
			s.log.Error("public index read failed", "err", ierr)
			d.Error, code = ierr.Error(), http.StatusInternalServerError
		case len(cs) == 0:
			d.Error, code = q.raw+" has never been made public by this archive: check the URL, or try a shorter one.", http.StatusNotFound
		}
		if err == nil && ierr == nil {
			for _, c := range cs {
				d.Captures = append(d.Captures, toPage(&c, now))
				if !c.released {
					mark[time.Unix(0, c.releaseAt).UTC().Truncate(24*time.Hour)] = true
				}
			}
		}
	}
	days := ix.upcoming(now)
	d.Calendar = template.HTML(calendarSVG(days, now, mark)) // built from numbers and escaped text only
	for _, day := range days[:min(len(days), 10)] {
		d.Upcoming = append(d.Upcoming, dayJSON{day.day.Format("Mon 2 Jan 2006"), day.count})
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

// toPage renders one capture for the page.
func toPage(c *capture, now time.Time) pageCapture {
	p := pageCapture{
		URL: c.url(), Timestamp: humanTime(c.time), State: public.StateEmbargoed, ReleaseAt: humanTime(c.releaseAt),
		Digest: c.digest(), Mime: c.mime, Status: int(c.status), Released: c.released, Revisit: c.revisit,
		Usage: usageInWords(c.usage), RawUsage: c.contentUsage(),
	}
	if h := c.headers(); h != "" {
		_ = json.Unmarshal([]byte(h), &p.Headers) // checked at load to be a JSON array; a bad one shows none
	}
	ts := time.Unix(0, c.time).UTC().Format("20060102150405")
	if c.released {
		p.State, p.Countdown = public.StateReleased, "released"
		p.RecordLink = "/api/v1/record?url=" + template.URLQueryEscaper(c.url()) + "&timestamp=" + ts
		p.PayloadLink = p.RecordLink + "&format=payload"
	} else {
		p.Countdown = countdown(time.Unix(0, c.releaseAt).Sub(now))
	}
	return p
}

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
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// handleStatic serves the page's stylesheet.
func handleStatic(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.FileServerFS(static).ServeHTTP(w, r)
}
