package lookup

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// capture is one public capture as an answer shows it, read from the public index for one
// request: the SURT key, URL, payload digest and raw header JSON share one string.
type capture struct {
	text                      string // key ‖ url ‖ digest ‖ headers JSON (empty when unknown)
	keyEnd, urlEnd, digestEnd uint32
	mime                      string
	embargoSource             string   // what set the embargo ("robots.txt", "header"), "" when not recorded
	file                      string   // relative to public/
	usage                     []string // combined Content-Usage preferences ("train-ai=n", …)
	usageRobots               []string // the robots.txt Content-Usage expressions, raw
	usageHeader               []string // the Content-Usage header field lines, raw
	time                      int64    // capture time, Unix nanoseconds
	releaseAt                 int64    // Unix nanoseconds
	offset                    int64
	length                    int64
	status                    uint16
	released                  bool
	revisit                   bool
	due                       bool // set per answer (markDue): a tombstone only, its release time passed
}

func (c *capture) key() string     { return c.text[:c.keyEnd] }
func (c *capture) url() string     { return c.text[c.keyEnd:c.urlEnd] }
func (c *capture) digest() string  { return c.text[c.urlEnd:c.digestEnd] }
func (c *capture) headers() string { return c.text[c.digestEnd:] }

// stamp is the capture's time as a 14-digit timestamp (public.Timestamp14), the timestamp= of its links.
func (c *capture) stamp() string { return time.Unix(0, c.time).UTC().Format(public.Timestamp14) }

// contentUsage is what the publisher stated, as written: the robots.txt rule(s), then the
// header. A line from before the raw statements were published has only the combined list.
func (c *capture) contentUsage() []string {
	if c.usageRobots == nil && c.usageHeader == nil {
		return c.usage
	}
	return slices.Concat(c.usageRobots, c.usageHeader)
}

// index is one generation of the public side: the open public index and its totals.
// It is immutable; a reload makes a new one.
type index struct {
	loaded     bool          // false only before the first load
	set        *pubindex.Set // nil when nothing has been released
	released   int
	embargoed  int
	badLines   int
	generation int64 // of state.json
	state      public.Status
	loadedIn   time.Duration
	days       []dayCount // embargoed captures per release day (UTC), ascending
}

// dayCount is how many embargoed captures come due on one UTC day.
type dayCount struct {
	day   time.Time
	count int
}

// withSet returns a copy of ix over set, with the totals of its manifest.
func (ix index) withSet(set *pubindex.Set) *index {
	st := set.Manifest.Stats
	ix.set, ix.loaded = set, true
	ix.released, ix.embargoed, ix.badLines = int(st.Released), int(st.Embargoed), int(st.Malformed)
	ix.days = ix.days[:0:0]
	for _, d := range st.Days {
		if t, err := time.Parse(time.DateOnly, d.Date); err == nil {
			ix.days = append(ix.days, dayCount{t, int(d.Captures)})
		}
	}
	return &ix
}

// exact returns the captures whose SURT is key, newest first.
func (ix *index) exact(key string) ([]capture, error) {
	if ix.set == nil {
		return nil, nil
	}
	var out []capture
	err := ix.set.Captures(key, func(cs []pubindex.Capture) error {
		out = fromIndex(out, cs)
		return nil
	})
	return out, err
}

// fromIndex appends the captures of one key to out.
func fromIndex(out []capture, cs []pubindex.Capture) []capture {
	out = slices.Grow(out, len(cs))
	for i := range cs {
		out = append(out, toCapture(&cs[i]))
	}
	return out
}

// compareCaptures orders by SURT, then newest first, then released first, then by location:
// the order of prefix pages and their cursors (pubindex.Merge orders one key's captures so).
func compareCaptures(a, b capture) int {
	return cmp.Or(strings.Compare(a.key(), b.key()), cmp.Compare(b.time, a.time),
		pubindex.ReleasedFirst(a.released, b.released), strings.Compare(a.file, b.file), cmp.Compare(a.offset, b.offset))
}

// prefix returns up to limit captures, in index order, whose SURT matches m, starting after
// the position after (the zero cursor starts at the beginning). more says whether any remain.
func (ix *index) prefix(m matcher, after cursor, limit int) (page []capture, more bool, err error) {
	return ix.prefixHeld(m, after, limit, nil)
}

// prefixHeld is prefix with the page's bytes counted in share as it grows (held.go): it stops
// with share's error (errBusy) when the budget stays full.
func (ix *index) prefixHeld(m matcher, after cursor, limit int, share *heldShare) (page []capture, more bool, err error) {
	if ix.set == nil {
		return nil, false, nil
	}
	from := m.from
	if after.key > from {
		from = after.key
	}
	var past *capture
	if after.key != "" {
		c := after.capture()
		past = &c
	}
	err = ix.set.Scan(from, func(key []byte, lines [][]byte) (bool, error) {
		k := string(key)
		if !strings.HasPrefix(k, m.from) {
			return false, nil
		}
		if !m.match(k) {
			return true, nil
		}
		for _, c := range fromIndex(nil, pubindex.Merge(lines)) {
			if past != nil && compareCaptures(c, *past) <= 0 {
				continue
			}
			if len(page) == limit {
				more = true
				return false, nil
			}
			page = append(page, c)
			if err := share.add(captureBytes(&c)); err != nil {
				return false, err
			}
		}
		return true, nil
	})
	return page, more, err
}

// matcher selects the SURT keys of a prefix query.
type matcher struct {
	from string // every match starts with it
	dir  bool   // the URL ended in "/": match the key itself and what lies below it, not siblings
}

// match reports whether key is selected.
func (m matcher) match(key string) bool {
	if !m.dir {
		return strings.HasPrefix(key, m.from)
	}
	rest := key[len(m.from):]
	return rest == "" || rest[0] == '/' || rest[0] == '?'
}

// overdue counts the embargoed captures whose release day (UTC) is before now's: their release
// time has passed and no pass has released them yet. The public index counts embargoed captures
// per release day, so a capture due earlier today counts from tomorrow (its card says so at once).
func (ix *index) overdue(now time.Time) int {
	today := now.UTC().Truncate(24 * time.Hour)
	n := 0
	for _, d := range ix.days {
		if !d.day.Before(today) {
			break
		}
		n += d.count
	}
	return n
}

// upcoming returns the release days from the day of now on.
func (ix *index) upcoming(now time.Time) []dayCount {
	today := now.UTC().Truncate(24 * time.Hour)
	i, _ := slices.BinarySearchFunc(ix.days, today, func(d dayCount, t time.Time) int { return d.day.Compare(t) })
	return ix.days[i:]
}
