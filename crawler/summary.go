package crawler

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/store"
)

// Summary is what a crawl did.
type Summary struct {
	Pages             int                    // captures sealed by this run, robots.txt aside (revisits included)
	Revisits          int                    // of which unchanged payloads written as revisits
	Resumed           int                    // pages sealed by earlier runs of a resumed crawl
	Robots            int                    // robots.txt exchanges archived
	RobotsNotArchived int                    // robots.txt redirect hops at other URLs: parsed or followed, not archived (docs/rules.md#d23)
	Bytes             int64                  // raw response bytes of the pages
	Frontier          int                    // URLs the frontier knows (fetched, pending or skipped)
	Disallowed        int                    // URLs robots.txt disallowed: never requested
	Unreachable       int                    // of which disallowed because robots.txt answered 429 or 5xx (not printed)
	Skipped           int                    // URLs of skipped origins
	SkippedOrigins    int                    // origins skipped (Crawl-delay or Retry-After above the ceiling)
	Embargoed         map[embargo.Period]int // pages under an embargo, per period
	Errors            map[string]int         // failed URLs per error kind; robots-unreachable: robots.txt got no answer
	Duration          time.Duration
	PeakRSS           int64 // the process's peak resident memory in bytes (Linux VmHWM), 0 when unknown
	Requisites        int   // of Pages, requisites: embedded resources outside the scope or depth
	Sitemaps          int   // of Pages, sitemap files
	SitemapURLs       int   // new pages that sitemaps listed
	OtherPartition    int   // URLs found on origins of other partitions (Config.Partition), left to their nodes
	HandedOff         int   // of OtherPartition, URLs handed to their nodes (Config.HandOff)
	HandedIn          int   // URLs other nodes handed to this one that its frontier lacked, queued
	TooLong           int   // URLs found longer than Config.MaxURLLength, each time found: not followed (docs/rules.md#d25)
	TooDeep           int   // links with more path segments than Config.MaxPathDepth, each time found: not followed (docs/rules.md#d26)
	Repeating         int   // links repeating a path segment more than Config.MaxPathRepeats times, each time found: not followed
	LinksDropped      int   // distinct references of a page or stylesheet past its 10,000th: not followed
	Rendered          int   // pages rendered in the browser (Config.Browser)
	BrowserLoads      int   // of Pages, resources a page's browser asked for
	BrowserPeakRSS    int64 // the browser's peak memory, its processes' PSS summed; 0 when unknown
	BrowserRestarts   int   // times the browser was restarted (crashed, hung or above its memory bound)
}

// PagesPerSecond is the crawl's rate over its whole duration.
func (s Summary) PagesPerSecond() float64 {
	if s.Duration <= 0 {
		return 0
	}
	return float64(s.Pages) / s.Duration.Seconds()
}

// WriteTo prints the summary for a person, one fact a line.
func (s Summary) WriteTo(w io.Writer) (int64, error) {
	var b []byte
	b = fmt.Appendf(b, "pages        %d (%d revisits)", s.Pages, s.Revisits)
	if s.Resumed > 0 {
		b = fmt.Appendf(b, ", %d from earlier runs", s.Resumed)
	}
	b = fmt.Appendf(b, "\nbytes        %d\nfrontier     %d URLs known\nrobots.txt   %d archived", s.Bytes, s.Frontier, s.Robots)
	if s.RobotsNotArchived > 0 {
		b = fmt.Appendf(b, " (%d redirect hops at other URLs not archived)", s.RobotsNotArchived)
	}
	b = fmt.Appendf(b, "\ndisallowed   %d\n", s.Disallowed)
	if s.Requisites > 0 {
		b = fmt.Appendf(b, "requisites   %d\n", s.Requisites)
	}
	if s.Rendered > 0 || s.BrowserLoads > 0 {
		b = fmt.Appendf(b, "browser      %d pages rendered, %d resources they loaded, %.1f MiB peak memory, %d restarts\n",
			s.Rendered, s.BrowserLoads, float64(s.BrowserPeakRSS)/(1<<20), s.BrowserRestarts)
	}
	if s.Sitemaps > 0 || s.SitemapURLs > 0 {
		b = fmt.Appendf(b, "sitemaps     %d read, %d new URLs listed\n", s.Sitemaps, s.SitemapURLs)
	}
	if s.OtherPartition > 0 {
		b = fmt.Appendf(b, "partition    %d URLs on other partitions' origins, left to their nodes\n", s.OtherPartition)
	}
	if s.HandedOff > 0 || s.HandedIn > 0 {
		b = fmt.Appendf(b, "hand-off     %d URLs handed to their nodes, %d taken from other nodes\n", s.HandedOff, s.HandedIn)
	}
	if s.TooLong > 0 {
		b = fmt.Appendf(b, "too long     %d URLs longer than the URL length limit, not followed\n", s.TooLong)
	}
	if s.TooDeep > 0 || s.Repeating > 0 {
		b = fmt.Appendf(b, "traps        %d URLs too deep, %d repeating a path segment, not followed\n", s.TooDeep, s.Repeating)
	}
	if s.LinksDropped > 0 {
		b = fmt.Appendf(b, "links        %d past the 10,000 of a page or stylesheet, not followed\n", s.LinksDropped)
	}
	if s.Skipped > 0 || s.SkippedOrigins > 0 {
		b = fmt.Appendf(b, "skipped      %d URLs, %d origins\n", s.Skipped, s.SkippedOrigins)
	}
	b = fmt.Appendf(b, "embargoed   ")
	if len(s.Embargoed) == 0 {
		b = fmt.Appendf(b, " none")
	}
	for _, p := range slices.Sorted(maps.Keys(s.Embargoed)) {
		b = fmt.Appendf(b, " %s(%dd)=%d", p, p.Days(), s.Embargoed[p])
	}
	b = fmt.Appendf(b, "\nerrors      ")
	if len(s.Errors) == 0 {
		b = fmt.Appendf(b, " none")
	}
	for _, k := range slices.Sorted(maps.Keys(s.Errors)) {
		b = fmt.Appendf(b, " %s=%d", k, s.Errors[k])
	}
	b = fmt.Appendf(b, "\nduration     %s\nrate         %.1f pages/s\n", s.Duration.Round(time.Millisecond), s.PagesPerSecond())
	if s.PeakRSS > 0 {
		b = fmt.Appendf(b, "memory       %.1f MiB peak RSS\n", float64(s.PeakRSS)/(1<<20))
	}
	n, err := w.Write(b)
	return int64(n), err
}

// stats is a Summary under construction, safe for concurrent use.
type stats struct {
	mu    sync.Mutex
	s     Summary
	start time.Time
}

func newStats(start time.Time) *stats {
	return &stats{start: start, s: Summary{Embargoed: map[embargo.Period]int{}, Errors: map[string]int{}}}
}

func (st *stats) add(f func(*Summary)) {
	st.mu.Lock()
	f(&st.s)
	st.mu.Unlock()
}

func (st *stats) resumed(n int) { st.add(func(s *Summary) { s.Resumed = n }) }

// page counts one sealed page.
func (st *stats) page(e store.Entry, n int64, now time.Time) {
	st.add(func(s *Summary) {
		s.Pages++
		s.Bytes += n
		if e.Revisit {
			s.Revisits++
		}
		if e.Period != embargo.None && !embargo.Releasable(e.ReleaseAt, now) {
			s.Embargoed[e.Period]++
		}
	})
}

// kind counts a sealed page by why it was fetched.
func (st *stats) kind(k kind) {
	switch k {
	case kindRequisite:
		st.add(func(s *Summary) { s.Requisites++ })
	case kindSitemap:
		st.add(func(s *Summary) { s.Sitemaps++ })
	}
}

// summary returns a copy of the summary with its duration up to now.
func (st *stats) summary(now time.Time) Summary {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.s
	s.Embargoed = maps.Clone(st.s.Embargoed)
	s.Errors = maps.Clone(st.s.Errors)
	s.Duration = now.Sub(st.start)
	return s
}

// peakRSS reads the process's peak resident set size from /proc/self/status (VmHWM), which,
// unlike getrusage, does not count a parent's memory shared until exec; 0 when unavailable.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
