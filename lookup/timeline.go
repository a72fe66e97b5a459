package lookup

import (
	"net/url"
	"strconv"
	"time"

	"github.com/archivectl/archivectl/public"
)

// timelineData is the timeline of one URL: every capture the public side holds of it, grouped
// by year, month and day (UTC), newest first, the way a calendar of one URL reads.
type timelineData struct {
	URL       string
	CardHref  string // the capture cards of the URL
	Total     int
	Released  int
	Embargoed int
	Due       int // of the embargoed, due: waiting for the next release pass
	Years     []timelineYear
}

// timelineYear is one year of a timeline.
type timelineYear struct {
	Year   int
	Count  int
	Months []timelineMonth
}

// timelineMonth is one month of a timeline year.
type timelineMonth struct {
	Name, Datetime string // "November 2026", "2026-11"
	Count          int
	Days           []timelineDay
}

// timelineDay is one day of a timeline month.
type timelineDay struct {
	Label, Datetime string // "Sun 29 Nov", "2026-11-29"
	Captures        []timelineCapture
}

// timelineCapture is one capture on a timeline: its time, its state and a link to its card
// (and, released, to its record).
type timelineCapture struct {
	Time, Datetime              string // "20:00:00 UTC", RFC 3339
	State                       string
	Released, Due, Revisit      bool
	Status                      int
	ReleaseAt, ReleaseISO       string
	Countdown                   string
	CardHref, RecordHref        string
	PublicSince, PublicSinceISO string
}

// timeline groups the captures of one URL (newest first, as ix.exact returns them, due ones
// marked) by year, month and day; cards are the same captures as the card view renders them,
// whose anchors the timeline links to.
func timeline(raw string, cs []capture, cards []pageCapture) *timelineData {
	card := "/?url=" + url.QueryEscape(raw)
	t := &timelineData{URL: raw, CardHref: card, Total: len(cs)}
	for i := range cs {
		c, p := &cs[i], &cards[i]
		at := time.Unix(0, c.time).UTC()
		tc := timelineCapture{
			Time: at.Format("15:04:05 UTC"), Datetime: at.Format(time.RFC3339), State: p.State, Released: c.released, Due: c.due, Revisit: c.revisit,
			Status: int(c.status), ReleaseAt: p.ReleaseAt, ReleaseISO: p.ReleaseISO, Countdown: p.Countdown,
			CardHref: card + "#" + p.Anchor, RecordHref: p.RecordLink, PublicSince: p.PublicSince, PublicSinceISO: p.PublicSinceISO,
		}
		if c.released {
			t.Released++
		} else {
			t.Embargoed++
			if c.due {
				t.Due++
			}
		}
		if n := len(t.Years); n == 0 || t.Years[n-1].Year != at.Year() {
			t.Years = append(t.Years, timelineYear{Year: at.Year()})
		}
		y := &t.Years[len(t.Years)-1]
		y.Count++
		if n := len(y.Months); n == 0 || y.Months[n-1].Datetime != at.Format("2006-01") {
			y.Months = append(y.Months, timelineMonth{Name: at.Format("January 2006"), Datetime: at.Format("2006-01")})
		}
		m := &y.Months[len(y.Months)-1]
		m.Count++
		if n := len(m.Days); n == 0 || m.Days[n-1].Datetime != at.Format(time.DateOnly) {
			m.Days = append(m.Days, timelineDay{Label: at.Format("Mon 2 Jan"), Datetime: at.Format(time.DateOnly)})
		}
		d := &m.Days[len(m.Days)-1]
		d.Captures = append(d.Captures, tc)
	}
	return t
}

// anchors names each capture card of one URL for links from its timeline: "c" and the capture's
// 14-digit timestamp, with "-2", "-3", … for later captures of the same second.
func anchors(cs []capture) []string {
	out := make([]string, len(cs))
	seen := map[string]int{}
	for i := range cs {
		a := "c" + time.Unix(0, cs[i].time).UTC().Format(public.Timestamp14)
		seen[a]++
		if n := seen[a]; n > 1 {
			a += "-" + strconv.Itoa(n)
		}
		out[i] = a
	}
	return out
}
