package lookup

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"io/fs"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/release/public"
)

// capture is one public capture as the lookup keeps it, compact for a million of them: the
// SURT key, URL, payload digest and raw header JSON share one string; shared values are interned.
type capture struct {
	text                      string // key ‖ url ‖ digest ‖ headers JSON (empty when unknown)
	keyEnd, urlEnd, digestEnd uint32
	mime                      string   // interned
	file                      string   // interned; relative to public/
	usage                     []string // interned per distinct list
	time                      int64    // capture time, Unix nanoseconds
	releaseAt                 int64    // Unix nanoseconds
	offset                    int64
	length                    int64
	id                        uint64 // hash of the capture id: lines of one capture share it
	status                    uint16
	released                  bool
	revisit                   bool
}

func (c *capture) key() string     { return c.text[:c.keyEnd] }
func (c *capture) url() string     { return c.text[c.keyEnd:c.urlEnd] }
func (c *capture) digest() string  { return c.text[c.urlEnd:c.digestEnd] }
func (c *capture) headers() string { return c.text[c.digestEnd:] }

// withHeaders returns c carrying headers (raw JSON) instead of its own.
func (c capture) withHeaders(headers string) capture {
	c.text = c.text[:c.digestEnd] + headers
	return c
}

// index is an immutable snapshot of the public side: every capture sorted by SURT, newest first
// within a SURT, plus the number of embargoed captures due on each upcoming day.
type index struct {
	loaded     bool // false only before the first load
	captures   []capture
	released   int
	embargoed  int
	badLines   int
	generation int64
	state      public.Status
	loadedIn   time.Duration
	days       []dayCount       // embargoed captures per release day (UTC), ascending
	files      map[string]int64 // the CDXJ files read, with their sizes
	seed       maphash.Seed     // of the capture id hashes: kept across incremental loads
}

// dayCount is how many embargoed captures come due on one UTC day.
type dayCount struct {
	day   time.Time
	count int
}

// loadIndex reads every *.cdxj under shards/ and tombstones/ of the public directory fsys.
// One capture id with both an embargoed and a released line is released (keeping the
// tombstone's header fields); files still being written (.tmp, .open) are never read;
// malformed lines are skipped, counted and logged.
//
// The releaser never rewrites or removes a public file, so when every file of prev is still
// there with its size, only the new files are read and merged into prev's captures; otherwise
// (or with prev nil) everything is read again.
func loadIndex(fsys fs.FS, logger *slog.Logger, prev *index) (*index, error) {
	start := time.Now()
	names, err := public.CDXJFiles(fsys)
	if err != nil {
		return nil, err
	}
	files := make(map[string]int64, len(names))
	for _, name := range names {
		fi, err := fs.Stat(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("stat public/%s: %w", name, err)
		}
		files[name] = fi.Size()
	}
	ix := &index{loaded: true, files: files, seed: maphash.MakeSeed()}
	var base []capture
	if prev != nil && prev.loaded && extends(files, prev.files) {
		ix.seed, base, ix.badLines = prev.seed, prev.captures, prev.badLines
		names = slices.DeleteFunc(names, func(n string) bool { _, old := prev.files[n]; return old })
	}

	results := make([]fileResult, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, name := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = readFile(fsys, name, ix.seed)
		})
	}
	wg.Wait()
	total := 0
	for i, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		for _, e := range r.bad {
			logger.Warn("skipping malformed CDXJ line", "file", names[i], "line", e.line, "err", e.err)
		}
		warnBeyondShards(fsys, logger, names[i], r.chunks)
		ix.badLines += len(r.bad)
		for _, c := range r.chunks {
			total += len(c)
		}
	}
	fresh := make([]capture, 0, total)
	for i := range results {
		for j, c := range results[i].chunks {
			fresh = append(fresh, c...)
			results[i].chunks[j] = nil
		}
	}
	slices.SortFunc(fresh, compareCaptures)
	switch {
	case len(fresh) == 0 && base != nil:
		ix.captures = base // nothing new: share the previous snapshot's immutable slice
	case base == nil:
		ix.captures = dedupe(fresh)
	default:
		ix.captures = dedupe(merge(base, fresh))
	}
	ix.count()
	ix.loadedIn = time.Since(start)
	return ix, nil
}

// extends reports whether files holds every file of prev with the same size.
func extends(files, prev map[string]int64) bool {
	for name, size := range prev {
		if files[name] != size {
			return false
		}
	}
	return true
}

// merge returns the sorted union of two sorted capture slices, in a new slice.
func merge(a, b []capture) []capture {
	out := make([]capture, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if compareCaptures(a[0], b[0]) <= 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// count fills in the totals and the embargoed captures per release day.
func (ix *index) count() {
	perDay := map[time.Time]int{}
	for i := range ix.captures {
		c := &ix.captures[i]
		if c.released {
			ix.released++
			continue
		}
		ix.embargoed++
		perDay[time.Unix(0, c.releaseAt).UTC().Truncate(24*time.Hour)]++
	}
	for d, n := range perDay {
		ix.days = append(ix.days, dayCount{d, n})
	}
	slices.SortFunc(ix.days, func(a, b dayCount) int { return a.day.Compare(b.day) })
}

// compareCaptures orders by SURT, then newest first, then released first, then by location.
func compareCaptures(a, b capture) int {
	return cmp.Or(strings.Compare(a.key(), b.key()), cmp.Compare(b.time, a.time),
		compareBool(b.released, a.released), strings.Compare(a.file, b.file), cmp.Compare(a.offset, b.offset))
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// dedupe merges the lines of one capture, which sort next to each other (same key and time):
// the released line wins (it sorts first) and keeps the header fields of a tombstone line.
func dedupe(cs []capture) []capture {
	out := cs[:0]
	runStart := 0 // where the current run of equal key and time begins in out
	for _, c := range cs {
		if len(out) > runStart && (out[runStart].time != c.time || out[runStart].key() != c.key()) {
			runStart = len(out)
		}
		merged := false
		for j := runStart; j < len(out); j++ {
			if out[j].id == c.id {
				if out[j].digestEnd == uint32(len(out[j].text)) && c.digestEnd < uint32(len(c.text)) {
					out[j] = out[j].withHeaders(c.headers())
				}
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, c)
		}
	}
	clear(cs[len(out):])
	return out
}

// exact returns the captures whose SURT is key, newest first.
func (ix *index) exact(key string) []capture {
	lo, _ := slices.BinarySearchFunc(ix.captures, key, func(c capture, k string) int { return strings.Compare(c.key(), k) })
	hi := lo
	for hi < len(ix.captures) && ix.captures[hi].key() == key {
		hi++
	}
	return ix.captures[lo:hi]
}

// prefix returns up to limit captures, in index order, whose SURT matches m, starting after
// the position after (the zero cursor starts at the beginning). more says whether any remain.
func (ix *index) prefix(m matcher, after cursor, limit int) (page []capture, more bool) {
	i, _ := slices.BinarySearchFunc(ix.captures, m.from, func(c capture, k string) int { return strings.Compare(c.key(), k) })
	if after.key != "" {
		j, found := slices.BinarySearchFunc(ix.captures, after.capture(), compareCaptures)
		if found {
			j++
		}
		i = max(i, j)
	}
	for ; i < len(ix.captures); i++ {
		c := &ix.captures[i]
		if !strings.HasPrefix(c.key(), m.from) {
			break
		}
		if !m.match(c.key()) {
			continue
		}
		if len(page) == limit {
			return page, true
		}
		page = append(page, *c)
	}
	return page, false
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

// upcoming returns the release days from the day of now on.
func (ix *index) upcoming(now time.Time) []dayCount {
	today := now.UTC().Truncate(24 * time.Hour)
	i, _ := slices.BinarySearchFunc(ix.days, today, func(d dayCount, t time.Time) int { return d.day.Compare(t) })
	return ix.days[i:]
}
