package lookup

import (
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The calendar's geometry: calWeeks weeks of seven days, one square a day, in pixels at 1:1.
const (
	calWeeks  = 14 // 98 days: the longest embargo period (q, 90 days) fits
	calCell   = 40
	calGap    = 4
	calStep   = calCell + calGap
	calLabel  = 40 // the column of weekday (wide) or month (tall) labels
	calHead   = 24 // the row of month (wide) or weekday (tall) labels
	calLegend = 56 // the legend and note under the squares
)

// calendarSVG draws the embargoed captures due on each day of the calWeeks weeks from the
// Monday of now's week as server-rendered SVG: one square a day with its day of the month and,
// when captures come out that day, how many; darker for more; a title per day. Captures of days
// before today are under embargo still (no pass has released them): their days this week are
// drawn in the due colour, and the note counts them all. today is outlined
// dark, days in mark (release days of the capture being looked at) red. wide lays weeks out as
// columns (a laptop); otherwise weeks are rows, as in a paper calendar, to fit a phone's width.
// All text is at least 12 px at 1:1, and the SVG scales to its box through its viewBox.
func calendarSVG(days []dayCount, now time.Time, mark map[time.Time]bool, wide bool) string {
	today := now.UTC().Truncate(24 * time.Hour)
	start := today.AddDate(0, 0, -int((today.Weekday()+6)%7)) // Monday of this week
	end := start.AddDate(0, 0, 7*calWeeks)
	counts := map[time.Time]int{}
	most, later, total, overdue := 0, 0, 0, 0
	for _, d := range days {
		switch {
		case d.day.Before(today):
			overdue += d.count
			counts[d.day] = d.count
			continue
		case !d.day.Before(end):
			later += d.count
			continue
		}
		counts[d.day] = d.count
		most = max(most, d.count)
		total += d.count
	}
	// at places week w, weekday d (0 = Monday) in the layout.
	at := func(w, d int) (x, y int) { return calLabel + w*calStep, calHead + d*calStep }
	width, height := calLabel+calWeeks*calStep, calHead+7*calStep+calLegend
	if !wide {
		at = func(w, d int) (x, y int) { return calLabel + d*calStep, calHead + w*calStep }
		width, height = calLabel+7*calStep, calHead+calWeeks*calStep+calLegend
	}
	orient := "tall"
	if wide {
		orient = "wide"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="calendar %s" width="%d" height="%d" viewBox="0 0 %d %d" role="group" aria-labelledby="cal-title-%s">`,
		orient, width, height, width, height, orient)
	pastDue := ""
	if overdue > 0 {
		pastDue = fmt.Sprintf("; %s past their release day, waiting for the next release pass", plural(overdue, "capture"))
	}
	fmt.Fprintf(&b, `<title id="cal-title-%s">Release calendar: %s due in the %d weeks from %s%s</title>`,
		orient, plural(total, "capture"), calWeeks, start.Format("Mon 2 Jan 2006"), html.EscapeString(pastDue))
	for d, name := range []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"} {
		x, y := at(0, d)
		if wide {
			fmt.Fprintf(&b, `<text x="0" y="%d" %s>%s</text>`, y+calCell/2+5, label, name)
		} else {
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" %s>%s</text>`, x+calCell/2, calHead-8, label, name)
		}
	}
	for _, w := range monthStarts(start) {
		x, y := at(w, 0)
		name := start.AddDate(0, 0, 7*w+6).Format("Jan")
		if wide {
			fmt.Fprintf(&b, `<text x="%d" y="%d" %s>%s</text>`, x, calHead-8, label, name)
		} else {
			fmt.Fprintf(&b, `<text x="0" y="%d" %s>%s</text>`, y+calCell/2+5, label, name)
		}
	}
	for w := range calWeeks {
		for d := range 7 {
			day := start.AddDate(0, 0, 7*w+d)
			x, y := at(w, d)
			n := counts[day]
			lv := level(n, most)
			fill, ink, stroke := shades[lv], inks[lv], ""
			if day.Before(today) {
				fill, ink = "#f4f4f4", "#595959" // 6.4:1: a date stays legible when its day is gone
				if n > 0 {
					fill, ink = dueFill, "#1d1d1f"
				}
			}
			if day.Equal(today) {
				stroke = ` stroke="#1d1d1f" stroke-width="2"`
			}
			if mark[day] {
				stroke = ` stroke="#c0392b" stroke-width="3"`
			}
			what := "no releases"
			switch {
			case n > 0 && day.Before(today):
				what = plural(n, "capture") + " due, waiting for the next release pass"
			case n > 0:
				what = plural(n, "capture") + " released"
			}
			if day.Equal(today) {
				what += " (today)"
			}
			opening, closing := "<g>", "</g>"
			if n > 0 { // a release day opens the day view: its captures (day.go)
				opening, closing = `<a href="`+dayHref(day)+`">`, "</a>"
			}
			fmt.Fprintf(&b, `%s<title>%s</title><rect x="%d" y="%d" width="%d" height="%d" rx="4" fill="%s"%s/>`,
				opening, html.EscapeString(day.Format("Mon 2 Jan 2006")+": "+what), x, y, calCell, calCell, fill, stroke)
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-family="sans-serif" font-size="12" fill="%s">%d</text>`, x+4, y+14, ink, day.Day())
			if n > 0 {
				fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" font-family="sans-serif" font-size="15" font-weight="bold" fill="%s">%s</text>`,
					x+calCell-5, y+calCell-6, ink, strconv.Itoa(n))
			}
			b.WriteString(closing)
		}
	}
	legendY := height - calLegend + 22
	fmt.Fprintf(&b, `<text x="0" y="%d" %s>fewer</text>`, legendY, label)
	for i, shade := range shades {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="18" height="18" rx="3" fill="%s"/>`, 44+i*22, legendY-14, shade)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" %s>more</text>`, 44+5*22+4, legendY, label)
	note := plural(total, "capture") + " due in these " + strconv.Itoa(calWeeks) + " weeks" + pastDue
	if later > 0 {
		note += fmt.Sprintf("; %d more after %s", later, end.AddDate(0, 0, -1).Format("2 Jan"))
	}
	fmt.Fprintf(&b, `<text x="0" y="%d" %s>%s</text></svg>`, legendY+26, label, html.EscapeString(note))
	return b.String()
}

// monthStarts returns the weeks that carry a month label: each week whose Sunday is in a new
// month, except the first when the next label follows within two weeks (they would overlap).
func monthStarts(start time.Time) []int {
	var weeks []int
	last := time.Month(0)
	for w := range calWeeks {
		if m := start.AddDate(0, 0, 7*w+6).Month(); m != last {
			weeks = append(weeks, w)
			last = m
		}
	}
	if len(weeks) > 1 && weeks[0] == 0 && weeks[1] < 2 {
		weeks = weeks[1:]
	}
	return weeks
}

// label styles the calendar's text with presentation attributes: no stylesheet is needed, so
// the SVG looks the same inline in the page and alone under a strict Content-Security-Policy.
const label = `font-family="sans-serif" font-size="13" fill="#444"`

// shades fill a day by level: none, then four steps to the busiest day; inks are the text on them.
var (
	shades = [5]string{"#e8ebef", "#c6dbef", "#6baed6", "#2171b5", "#08306b"}
	inks   = [5]string{"#555", "#1d1d1f", "#1d1d1f", "#fff", "#fff"}
)

// dueFill is the square of a day gone by whose captures no pass has released yet.
const dueFill = "#f6c86b"

// level buckets a day's count into 0 (none) to 4 (the busiest day).
func level(n, most int) int {
	if n == 0 || most == 0 {
		return 0
	}
	return 1 + min(3, (n-1)*4/most)
}

// handleCalendarSVG answers GET /calendar.svg: the wide calendar, or ?layout=tall.
func (s *Server) handleCalendarSVG(w http.ResponseWriter, r *http.Request) {
	ix := s.ix.Load()
	now := s.now()
	svg := calendarSVG(ix.days, now, nil, r.URL.Query().Get("layout") != "tall")
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write([]byte(svg))
}
