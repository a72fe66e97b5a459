//go:build unix

package main

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// day is the unit of every embargo period and release-pass offset of the golden run.
const day = 24 * time.Hour

// goldenPeriods are the embargo periods of the demo web (none, w, m, q): a capture instant may
// appear shifted by one of them (its release time).
var goldenPeriods = []int{0, 7, 31, 90}

// normaliser rewrites the few values of a golden run that cannot repeat (see the comment of
// TestGolden) into stable tokens, and collects what it cannot classify into errs.
type normaliser struct {
	now                time.Time         // the demo's now: the demo web's clock and the first release pass
	crawlFrom, crawlTo time.Time         // the real time around the crawl command
	clockFrom          time.Time         // the real time at the start of the test
	ports              map[string]string // loopback port → demo origin name, or "lookup"
	captures           map[int64]string  // capture instant (Unix ns) → short name of the capture
	ids                map[string]string // record UUID → label
	host               string            // this machine's name as the sealed WARC file names carry it
	hostname           string            // and as the warcinfo record gives it (os.Hostname)
	errs               []string
}

// short names a captured URL by its demo origin and path: "weekly/news/", "blog/robots.txt".
func (n *normaliser) short(rawURL string) string {
	m := loopbackRE.FindStringSubmatch(rawURL)
	if m == nil {
		return rawURL
	}
	name, ok := n.ports[m[3]]
	if !ok {
		return rawURL
	}
	_, path, _ := strings.Cut(rawURL, m[0])
	return name + path
}

var (
	loopbackRE = regexp.MustCompile(`(127\.0\.0\.1|1,0,0,127)(:|_|%3A)([0-9]{1,5})`) // an address, or its SURT key
	uuidRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	sealedRE   = regexp.MustCompile(`(archivectl-[0-9]{17}-[0-9]{5}-)([A-Za-z0-9.-]+?)(\.warc\.gz)`)
	hostLineRE = regexp.MustCompile(`(?m)^(hostname: )([^\r\n]*)`)
	rfc3339RE  = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})`)
	httpDateRE = regexp.MustCompile(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT`)
	dayOnlyRE  = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}`)
	digitsRE   = regexp.MustCompile(`[0-9]+`)
)

// text normalises s. changed reports that something was replaced; variable that a replaced value
// has no fixed width (a fractional RFC 3339 time, the host name, a port not of 5 digits), so a
// length over s may vary too.
func (n *normaliser) text(s string) (out string, changed, variable bool) {
	repl := func(re *regexp.Regexp, s string, f func(m []string) (string, bool)) string {
		return re.ReplaceAllStringFunc(s, func(whole string) string {
			r, v := f(re.FindStringSubmatch(whole))
			if r != whole {
				changed = true
				variable = variable || v
			}
			return r
		})
	}
	s = repl(loopbackRE, s, func(m []string) (string, bool) {
		name, ok := n.ports[m[3]]
		if m[3] == "0" { // --listen 127.0.0.1:0 as written
			return m[0], false
		}
		if !ok {
			n.errs = append(n.errs, "unknown loopback port in "+m[0])
			return m[0], false
		}
		return m[1] + m[2] + "{" + name + "}", len(m[3]) != 5
	})
	s = repl(uuidRE, s, func(m []string) (string, bool) {
		label, ok := n.ids[m[0]]
		if !ok {
			n.errs = append(n.errs, "UUID "+m[0]+" is no record id of the data directory")
			return "{id ?}", false
		}
		return "{" + label + "}", false
	})
	if n.host != "" {
		s = repl(sealedRE, s, func(m []string) (string, bool) {
			if m[2] != n.host {
				return m[0], false
			}
			return m[1] + "{host}" + m[3], true
		})
		s = repl(hostLineRE, s, func(m []string) (string, bool) {
			if m[2] != n.hostname {
				return m[0], false
			}
			return m[1] + "{host}", true
		})
	}
	s = repl(rfc3339RE, s, func(m []string) (string, bool) {
		t, err := time.Parse(time.RFC3339Nano, m[0])
		if err != nil {
			return m[0], false
		}
		if m[1] != "" {
			return n.instant(m[0], t, "rfc3339ns"), true
		}
		return n.instant(m[0], t, "rfc3339"), false
	})
	s = repl(httpDateRE, s, func(m []string) (string, bool) {
		t, err := http.ParseTime(m[0])
		if err != nil {
			return m[0], false
		}
		return n.instant(m[0], t, "http"), false
	})
	s = repl(digitsRE, s, func(m []string) (string, bool) {
		if len(m[0]) == 8 { // a release day, as the day files of public/access and public/embargoed name it
			return n.day(m[0]), false
		}
		if len(m[0]) != 14 && len(m[0]) != 17 { // 14: CDXJ and file-name stamps; 17: with milliseconds
			return m[0], false
		}
		t, err := time.Parse("20060102150405", m[0][:14])
		if err != nil {
			return m[0], false
		}
		ms, _ := strconv.Atoi(m[0][14:]) // "" for 14 digits: 0
		return n.instant(m[0], t.Add(time.Duration(ms)*time.Millisecond), fmt.Sprintf("ts%d", len(m[0]))), false
	})
	for _, d := range dayOnlyRE.FindAllString(s, -1) {
		if t, err := time.Parse(time.DateOnly, d); err == nil && n.near(t) {
			n.errs = append(n.errs, "unclassified date "+d+" near the real clock")
		}
	}
	return s, changed, variable
}

// near reports that t lies within 400 days of the demo's now: a value of this run's clock.
func (n *normaliser) near(t time.Time) bool {
	d := t.Sub(n.now)
	return d > -400*day && d < 400*day
}

// instant classifies one time value written as raw in the given format:
//
//	{T weekly/news/+7d rfc3339ns}  exactly the capture instant of that URL (+ an embargo period)
//	{crawl+7d http}                 during the crawl command (+ an embargo period), when the
//	                                format is too coarse to name the capture
//	{now+8d rfc3339}                exactly the demo's now ± whole days
//	{clock http}                    during this test, after the crawl (the lookup's Date header)
//
// Anything else near the real clock is an error; times far from it (the demo web's fixed
// Last-Modified values of 2018, 2019 and 2100, and what derives from them) stay as they are.
func (n *normaliser) instant(raw string, t time.Time, format string) string {
	for _, k := range goldenPeriods {
		if name, ok := n.captures[t.Add(-time.Duration(k)*day).UnixNano()]; ok {
			return fmt.Sprintf("{T %s%s %s}", name, plusDays(k), format)
		}
	}
	for _, k := range goldenPeriods {
		off := time.Duration(k) * day
		if !t.Before(n.crawlFrom.Truncate(time.Second).Add(off)) && !t.After(n.crawlTo.Add(off)) {
			return fmt.Sprintf("{crawl%s %s}", plusDays(k), format)
		}
	}
	if d := t.Sub(n.now); d%day == 0 && n.near(t) {
		return fmt.Sprintf("{now%s %s}", offset(d), format)
	}
	if !t.Before(n.clockFrom.Truncate(time.Second)) && !t.After(time.Now()) {
		return fmt.Sprintf("{clock %s}", format)
	}
	if n.near(t) {
		n.errs = append(n.errs, fmt.Sprintf("unclassified time %s (%s from the demo's now)", raw, t.Sub(n.now)))
		return "{? " + format + "}"
	}
	return raw
}

// day classifies a UTC day written as 8 digits (20270302), as instant does a time:
//
//	{day crawl+90d}  the day of the crawl command (+ an embargo period)
//	{day now+8d}     the day of the demo's now ± whole days
//
// Anything else near the real clock is an error; other digits stay as they are.
func (n *normaliser) day(raw string) string {
	t, err := time.Parse("20060102", raw)
	if err != nil || !n.near(t) {
		return raw
	}
	for _, k := range goldenPeriods {
		off := time.Duration(k) * day
		if !t.Before(n.crawlFrom.UTC().Add(off).Truncate(day)) && !t.After(n.crawlTo.UTC().Add(off)) {
			return fmt.Sprintf("{day crawl%s}", plusDays(k))
		}
	}
	if d := t.Sub(n.now.UTC().Truncate(day)); d%day == 0 {
		return fmt.Sprintf("{day now%s}", offset(d))
	}
	n.errs = append(n.errs, "unclassified day "+raw)
	return "{day ?}"
}

// plusDays is "" for 0, else "+Nd".
func plusDays(k int) string {
	if k == 0 {
		return ""
	}
	return fmt.Sprintf("+%dd", k)
}

// offset renders a whole-second offset from the demo's now: "", "+8d", "-25d", "+6d1h0m0s".
func offset(d time.Duration) string {
	if d == 0 {
		return ""
	}
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	days, rest := d/day, d%day
	s := sign
	if days > 0 {
		s += fmt.Sprintf("%dd", days)
	}
	if rest > 0 {
		s += rest.String()
	}
	return s
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
