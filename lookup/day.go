package lookup

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/public/pubindex"
)

// The captures of one release day are found by a scan: the public index is ordered by SURT and
// counts embargoed captures per day only in its manifest, so no key range holds one day. One
// request reads at most dayScanBudget CDXJ lines from its cursor on and answers what it found with
// a cursor to go on from; a page may so hold fewer captures than its limit and still have a next
// one. A line whose text holds none of the dates of the day before, the day itself and the day
// after (its release_at, in any UTC offset, names one of them) is skipped unparsed.
const (
	dayScanBudget   = 50_000 // CDXJ lines one request reads at most
	dayDefaultLimit = 100    // captures per page of /api/v1/releases
	dayPageLimit    = 50     // captures per page of the day view
)

// errIndexRead marks an error of the public index (a damaged segment), not of the request.
var errIndexRead = errors.New("public index read failed")

// dayQuery is a validated request for one release day.
type dayQuery struct {
	raw   string    // YYYY-MM-DD as given
	day   time.Time // its start, UTC
	limit int
	after dayCursor
}

// dayCursor is where the scan of a day goes on: after the capture pos (a cursor of the prefix
// kind, or one whose key ends in "\x00": after every capture of that key), with how many embargoed
// captures of the day the pages before found in the index generation gen.
type dayCursor struct {
	pos   cursor
	found int
	gen   int64
}

// String encodes the cursor for a URL: the position's cursor, ".", found, ".", generation.
func (c dayCursor) String() string {
	return c.pos.String() + "." + strconv.Itoa(c.found) + "." + strconv.FormatInt(c.gen, 10)
}

// parseDayCursor decodes a cursor made by dayCursor.String.
func parseDayCursor(s string) (dayCursor, error) {
	var c dayCursor
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return c, errors.New("day cursor: want 3 parts")
	}
	var err error
	if c.pos, err = parseCursor(parts[0]); err != nil {
		return c, fmt.Errorf("day cursor: %w", err)
	}
	if c.found, err = strconv.Atoi(parts[1]); err != nil || c.found < 0 {
		return c, fmt.Errorf("day cursor: found %q", parts[1])
	}
	if c.gen, err = strconv.ParseInt(parts[2], 10, 64); err != nil {
		return c, fmt.Errorf("day cursor: generation: %w", err)
	}
	return c, nil
}

// parseDay validates ?day=YYYY-MM-DD[&limit=N&cursor=C].
func parseDay(v url.Values, defLimit int) (dayQuery, error) {
	q := dayQuery{raw: strings.TrimSpace(v.Get("day")), limit: defLimit}
	day, err := time.Parse(time.DateOnly, q.raw)
	if err != nil {
		return q, fmt.Errorf("day %q is not a date; give one like ?day=2026-12-01 (YYYY-MM-DD, UTC)", trunc(q.raw, 40))
	}
	q.day = day
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxLimit {
			return q, fmt.Errorf("limit %q is not a number from 1 to %d", trunc(l, 40), maxLimit)
		}
		q.limit = n
	}
	if c := v.Get("cursor"); c != "" {
		if q.after, err = parseDayCursor(c); err != nil {
			return q, fmt.Errorf("cursor %q is not one this service gave out; start again without it", trunc(c, 80))
		}
	}
	return q, nil
}

// dayResult is one page of the captures of a release day.
type dayResult struct {
	captures  []capture
	next      string // the cursor of the next page; "" when the scan is complete
	scanned   int    // CDXJ lines read
	embargoed int    // embargoed captures of the day, as the index manifest counts them
}

// releasesOn returns one page of the captures whose release time falls on q.day (UTC), released
// or not, in index order (SURT, then newest first), reading at most budget lines. When no pass
// has run since the day began (state.json's last_pass before it), none of them can have been
// released, and the manifest's count of the day's embargoed captures tells when all are found:
// the scan stops there, and a day the manifest does not list costs nothing.
func (ix *index) releasesOn(q dayQuery, budget int) (dayResult, error) {
	var res dayResult
	i, ok := slices.BinarySearchFunc(ix.days, q.day, func(d dayCount, t time.Time) int { return d.day.Compare(t) })
	if ok {
		res.embargoed = ix.days[i].count
	}
	if ix.set == nil {
		return res, nil
	}
	gen := ix.set.Manifest.Generation
	countable := ix.state.LastPass.Before(q.day) // nothing of the day can have been released
	found := 0
	if q.after.gen == gen {
		found = q.after.found
	} else if q.after.pos.key != "" {
		countable = false // another generation: the count found so far means nothing here
	}
	if countable && found >= res.embargoed {
		return res, nil
	}
	var tokens [3][]byte
	for k, d := range []time.Time{q.day.AddDate(0, 0, -1), q.day, q.day.AddDate(0, 0, 1)} {
		tokens[k] = []byte(d.Format(time.DateOnly))
	}
	start, end := q.day.UnixNano(), q.day.AddDate(0, 0, 1).UnixNano()
	var past *capture
	if q.after.pos.key != "" {
		c := q.after.pos.capture()
		past = &c
	}
	var last []byte // the last key read whole
	done := true
	err := ix.set.Scan(q.after.pos.key, func(key []byte, lines [][]byte) (bool, error) {
		if res.scanned >= budget {
			done = false
			return false, nil
		}
		res.scanned += len(lines)
		hit := false
		for _, l := range lines {
			if bytes.Contains(l, tokens[1]) || bytes.Contains(l, tokens[0]) || bytes.Contains(l, tokens[2]) {
				hit = true
				break
			}
		}
		if hit {
			for _, c := range fromIndex(nil, pubindex.Merge(lines)) {
				if c.releaseAt < start || c.releaseAt >= end || past != nil && compareCaptures(c, *past) <= 0 {
					continue
				}
				if len(res.captures) == q.limit {
					done = false
					return false, nil
				}
				res.captures = append(res.captures, c)
				if !c.released {
					found++
				}
			}
		}
		last = append(last[:0], key...)
		if countable && found >= res.embargoed {
			return false, nil // every capture of the day is found
		}
		return true, nil
	})
	if err != nil {
		return res, fmt.Errorf("%w: %w", errIndexRead, err)
	}
	if done {
		return res, nil
	}
	next := dayCursor{found: found, gen: gen}
	switch {
	case len(res.captures) == q.limit: // the page is full: go on after its last capture
		next.pos = cursorAfter(&res.captures[len(res.captures)-1])
		if !countable { // the captures found count only when the whole day can be counted
			next.found = 0
		}
	case last != nil: // the budget ran out: go on after the last key read whole
		next.pos = cursor{key: string(last) + "\x00"}
	default:
		next.pos = q.after.pos
	}
	res.next = next.String()
	return res, nil
}

// dayHref is the day view of a release day.
func dayHref(day time.Time) string { return "/?day=" + day.Format(time.DateOnly) }

// dayData is one page of the day view.
type dayData struct {
	Date, Datetime  string // "Tue 1 Dec 2026", "2026-12-01"
	Past            bool   // the day is before today
	Embargoed       int    // under embargo with this release day, as the index counts them
	Captures        []pageCapture
	Next, First     string
	Prev, Following link // the days before and after
	Scanned         int
}

// dayPage fills the day view from ?day=, due captures marked as of now.
func (s *Server) dayPage(ix *index, v url.Values, now time.Time) (*dayData, error) {
	q, err := parseDay(v, dayPageLimit)
	if err != nil {
		return nil, err
	}
	res, err := ix.releasesOn(q, dayScanBudget)
	if err != nil {
		return nil, err
	}
	d := &dayData{Date: q.day.Format("Mon 2 Jan 2006"), Datetime: q.raw, Embargoed: res.embargoed, Scanned: res.scanned,
		Past: q.day.Before(now.UTC().Truncate(24 * time.Hour))}
	d.Prev = link{Href: dayHref(q.day.AddDate(0, 0, -1)), Text: q.day.AddDate(0, 0, -1).Format("Mon 2 Jan")}
	d.Following = link{Href: dayHref(q.day.AddDate(0, 0, 1)), Text: q.day.AddDate(0, 0, 1).Format("Mon 2 Jan")}
	base := dayHref(q.day)
	if v.Get("limit") != "" {
		base += "&limit=" + strconv.Itoa(q.limit)
	}
	if res.next != "" {
		d.Next = base + "&cursor=" + res.next
	}
	if q.after.pos.key != "" {
		d.First = base
	}
	cs, passes := markDue(res.captures, now), s.passes(ix)
	for i := range cs {
		p := toPage(&cs[i], now)
		passes.fill(&p, &cs[i])
		d.Captures = append(d.Captures, p)
	}
	return d, nil
}

// handleReleases answers GET /api/v1/releases?day=YYYY-MM-DD[&limit=N&cursor=C]: one page of the
// captures whose release day (UTC) it is, in the shape docs/formats.md gives.
func (s *Server) handleReleases(w http.ResponseWriter, r *http.Request) {
	if len(r.URL.RawQuery) > maxQuery {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the query string is longer than %d bytes; shorten it", maxQuery))
		return
	}
	v, err := queryValues(r.URL.RawQuery)
	if err == nil {
		if !v.Has("day") {
			err = errors.New("the day parameter is missing; ask for ?day=2026-12-01 (YYYY-MM-DD, UTC)")
		}
	}
	var q dayQuery
	if err == nil {
		q, err = parseDay(v, dayDefaultLimit)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ix := s.ix.Load()
	res, err := ix.releasesOn(q, dayScanBudget)
	if err != nil {
		s.indexFailed(w, err)
		return
	}
	cs := markDue(res.captures, s.now())
	b := q.day.AppendFormat([]byte(`{"day":"`), time.DateOnly)
	b = append(b, `","embargoed":`...)
	b = strconv.AppendInt(b, int64(res.embargoed), 10)
	b = append(b, `,"captures":[`...)
	for i := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCapture(b, &cs[i])
	}
	b = append(b, `],"scanned_lines":`...)
	b = strconv.AppendInt(b, int64(res.scanned), 10)
	if res.next != "" {
		b = append(b, `,"next_cursor":`...)
		b = appendString(b, res.next)
	}
	b = append(b, "}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}
