package lookup

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"
)

// The calendar's geometry: weeks as columns, Monday to Sunday as rows.
const (
	calWeeks = 14 // 98 days: the longest embargo period (q, 90 days) fits
	calCell  = 15
	calGap   = 3
	calLeft  = 30
	calTop   = 18
)

// calendarSVG draws the embargoed captures due on each of the next calWeeks weeks from now as
// server-rendered SVG: one square a day, darker for more releases, with a title per day;
// days in mark (release days of the capture being looked at) get an outline.
func calendarSVG(days []dayCount, now time.Time, mark map[time.Time]bool) string {
	today := now.UTC().Truncate(24 * time.Hour)
	start := today.AddDate(0, 0, -int((today.Weekday()+6)%7)) // Monday of this week
	end := start.AddDate(0, 0, 7*calWeeks)
	counts := map[time.Time]int{}
	most, later, total := 0, 0, 0
	for _, d := range days {
		if !d.day.Before(end) {
			later += d.count
			continue
		}
		counts[d.day] = d.count
		most = max(most, d.count)
		total += d.count
	}
	w := calLeft + calWeeks*(calCell+calGap)
	h := calTop + 7*(calCell+calGap) + 44
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="calendar" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="cal-title">`, w, h, w, h)
	fmt.Fprintf(&b, `<title id="cal-title">Release calendar: %d captures come out of embargo in the %d weeks from %s</title>`, total, calWeeks, start.Format(time.DateOnly))
	for i, name := range []string{"Mon", "", "Wed", "", "Fri", "", "Sun"} {
		if name != "" {
			fmt.Fprintf(&b, `<text x="0" y="%d" %s>%s</text>`, calTop+i*(calCell+calGap)+calCell-2, label, name)
		}
	}
	for _, week := range monthColumns(start) {
		fmt.Fprintf(&b, `<text x="%d" y="11" %s>%s</text>`, calLeft+week*(calCell+calGap), label, start.AddDate(0, 0, 7*week+6).Month().String()[:3])
	}
	for week := range calWeeks {
		x := calLeft + week*(calCell+calGap)
		for wd := range 7 {
			day := start.AddDate(0, 0, 7*week+wd)
			y := calTop + wd*(calCell+calGap)
			n := counts[day]
			fill, stroke := shades[level(n, most)], ""
			if day.Before(today) {
				fill = "#f6f6f6"
			}
			if day.Equal(today) {
				stroke = ` stroke="#333" stroke-width="1.5"`
			}
			if mark[day] {
				stroke = ` stroke="#c0392b" stroke-width="2.5"`
			}
			what := "no releases"
			if n == 1 {
				what = "1 capture released"
			} else if n > 1 {
				what = fmt.Sprintf("%d captures released", n)
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="2" fill="%s"%s><title>%s</title></rect>`,
				x, y, calCell, calCell, fill, stroke, html.EscapeString(day.Format("Mon 2 Jan 2006")+": "+what))
		}
	}
	note := fmt.Sprintf("%d captures due in these %d weeks", total, calWeeks)
	if later > 0 {
		note += fmt.Sprintf("; %d more after %s", later, end.AddDate(0, 0, -1).Format(time.DateOnly))
	}
	fmt.Fprintf(&b, `<text x="0" y="%d" %s>%s</text>`, h-4, label, html.EscapeString(note))
	lx := w - 5*(calCell+calGap) - 58 // legend: fewer ▢▢▢▢▢ more
	fmt.Fprintf(&b, `<text x="%d" y="%d" %s>fewer</text>`, lx, h-24, label)
	for i, shade := range shades {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="2" fill="%s"/>`, lx+30+i*(calCell+calGap), h-24-calCell+3, calCell, calCell, shade)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" %s>more</text></svg>`, lx+30+5*(calCell+calGap)+2, h-24, label)
	return b.String()
}

// monthColumns returns the weeks that start a month label: each week whose Sunday is in a new
// month, except the first column when the next label follows within two weeks (they would overlap).
func monthColumns(start time.Time) []int {
	var cols []int
	last := time.Month(0)
	for week := range calWeeks {
		if m := start.AddDate(0, 0, 7*week+6).Month(); m != last {
			cols = append(cols, week)
			last = m
		}
	}
	if len(cols) > 1 && cols[0] == 0 && cols[1] < 3 {
		cols = cols[1:]
	}
	return cols
}

// label styles the calendar's text with presentation attributes: no stylesheet is needed, so
// the SVG looks the same inline in the page and alone under a strict Content-Security-Policy.
const label = `font-family="sans-serif" font-size="10" fill="#555"`

// shades fill a day by level: none, then four steps to the busiest day.
var shades = [5]string{"#ebedf0", "#c6dbef", "#6baed6", "#2171b5", "#08306b"}

// level buckets a day's count into 0 (none) to 4 (the busiest day).
func level(n, most int) int {
	if n == 0 || most == 0 {
		return 0
	}
	return 1 + min(3, (n-1)*4/most)
}

// handleCalendarSVG answers GET /calendar.svg.
func (s *Server) handleCalendarSVG(w http.ResponseWriter, r *http.Request) {
	ix := s.ix.Load()
	now := s.now()
	svg := calendarSVG(ix.upcoming(now), now, nil)
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write([]byte(svg))
}
