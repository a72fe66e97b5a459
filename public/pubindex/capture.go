package pubindex

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
)

// Capture is one public capture of a key, as Merge makes it from the key's lines.
type Capture struct {
	public.Raw        // the line that stands for it (the released one, if any); views into the line
	Headers    []byte // raw JSON header fields: its own, else those of a tombstone line of it
}

// Valid checks what a lookup needs of a parsed line beyond its syntax: a released capture
// names a record under shards/ (by its file name, or the path lines of earlier versions hold).
func Valid(r *public.Raw) error {
	f := &r.Block
	if string(f.State) != public.StateReleased {
		return nil
	}
	if len(f.Filename) == 0 || f.Length == 0 {
		return fmt.Errorf("released capture %s has no record location", f.URL)
	}
	if p := public.PathOf(string(f.Filename)); !fs.ValidPath(p) || !strings.HasPrefix(p, "shards/") {
		return fmt.Errorf("record file %q is not under shards/", f.Filename)
	}
	return nil
}

// Rekey returns the line as the index holds it: a line of an earlier version (its filename a
// path, "shards/…") was keyed by an older SURT form, so it is keyed afresh from its url with
// surt.Key, the key queries get; any other line as it is. r is the line parsed.
func Rekey(line []byte, r *public.Raw) []byte {
	if !bytes.Contains(r.Block.Filename, []byte("/")) {
		return line
	}
	key, err := surt.Key(string(r.Block.URL))
	if err != nil || key == string(r.Key) {
		return line
	}
	return append([]byte(key), line[len(r.Key):]...)
}

// ParseLine parses and checks one CDXJ line as the index takes it.
func ParseLine(line []byte) (public.Raw, error) {
	r, err := public.Parse(line)
	if err != nil {
		return r, err
	}
	return r, Valid(&r)
}

// Merge turns the lines of one key (in any order) into its captures, newest first, released
// before embargoed at the same instant, then by record location. Lines of one capture (same
// capture time and id: a tombstone and, from a later pass, its release) become one capture:
// the released line, keeping the tombstone's header fields (and embargo source, when only the
// tombstone's line has one). Lines that do not parse are left out.
func Merge(lines [][]byte) []Capture { return merge(parseCaptures(lines)) }

// merge is Merge of the lines parsed (cs, which it leaves as it is).
func merge(cs []Capture) []Capture {
	out, _ := mergeInto(nil, nil, cs)
	return out
}

// parseCaptures parses lines into captures, leaving out those that do not parse.
func parseCaptures(lines [][]byte) []Capture {
	cs := make([]Capture, 0, len(lines))
	for _, l := range lines {
		r, err := ParseLine(l)
		if err != nil {
			continue
		}
		cs = append(cs, Capture{Raw: r, Headers: r.Block.Headers})
	}
	return cs
}

// mergeInto is merge with its result in out[:0] and its sort order in order[:0], grown as
// needed and returned for use again.
func mergeInto(out []Capture, order []int, cs []Capture) ([]Capture, []int) {
	// Sort positions, not the large structs: fewer bytes moved and no write barriers per swap.
	order = order[:0]
	for i := range cs {
		order = append(order, i)
	}
	slices.SortFunc(order, func(a, b int) int { return compareCaptures(&cs[a], &cs[b]) })
	out = out[:0]
	run := 0 // where the run of captures at one instant begins in out
	for _, i := range order {
		c := &cs[i]
		if len(out) > run && out[run].Time != c.Time {
			run = len(out)
		}
		merged := false
		for j := run; j < len(out); j++ {
			if sameID(&out[j], c) {
				if len(out[j].Headers) == 0 && len(c.Headers) > 0 {
					out[j].Headers = c.Headers
				}
				if len(out[j].Block.EmbargoSource) == 0 {
					out[j].Block.EmbargoSource = c.Block.EmbargoSource
				}
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, *c)
		}
	}
	return out, order
}

// sameID reports whether two captures of one key and instant have the same capture id (or,
// without ids, the same digest).
func sameID(a, b *Capture) bool {
	fa, fb := &a.Block, &b.Block
	if len(fa.ID) == 0 || len(fb.ID) == 0 {
		return len(fa.ID) == len(fb.ID) && bytes.Equal(fa.Time, fb.Time) && bytes.Equal(fa.Digest, fb.Digest)
	}
	if fa.IDEscaped == fb.IDEscaped && bytes.Equal(fa.ID, fb.ID) {
		return true
	}
	if !fa.IDEscaped && !fb.IDEscaped {
		return false
	}
	ia, errA := fa.AppendID(nil) // the same id escaped differently: compare what it says
	ib, errB := fb.AppendID(nil)
	return errA == nil && errB == nil && bytes.Equal(ia, ib)
}

// Released reports whether the capture is released.
func (c *Capture) Released() bool { return string(c.Block.State) == public.StateReleased }

// compareCaptures orders one key's captures: newest first, released first, then by location.
func compareCaptures(a, b *Capture) int {
	if c := cmp.Compare(b.Time, a.Time); c != 0 { // most orders are decided here: no more comparing
		return c
	}
	return cmp.Or(ReleasedFirst(a.Released(), b.Released()),
		bytes.Compare(a.Block.Filename, b.Block.Filename), cmp.Compare(a.Block.Offset, b.Block.Offset))
}

// ReleasedFirst orders a released capture before a withheld one (a tombstone) of the same key and
// time, as cmp.Compare orders: negative when only a is released, positive when only b is. The
// index orders one key's captures with it (compareCaptures), and the lookup's pages follow.
func ReleasedFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// tally accumulates Stats as signed changes.
type tally struct {
	released, embargoed, malformed int64
	days                           map[int64]int64 // Unix day → embargoed captures due that day
}

func newTally(s Stats) (*tally, error) {
	t := &tally{released: s.Released, embargoed: s.Embargoed, malformed: s.Malformed, days: map[int64]int64{}}
	for _, d := range s.Days {
		at, err := time.Parse(time.DateOnly, d.Date)
		if err != nil {
			return nil, fmt.Errorf("public index manifest: day %q: %w", d.Date, err)
		}
		t.days[at.Unix()/86400] += d.Captures
	}
	return t, nil
}

// add counts the captures of one key, sign +1 or -1.
func (t *tally) add(cs []Capture, sign int64) {
	for i := range cs {
		if cs[i].Released() {
			t.released += sign
			continue
		}
		t.embargoed += sign
		t.days[floorDiv(cs[i].ReleaseAt, int64(24*time.Hour))] += sign
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// stats returns the totals; a negative count means the lines contradict the manifest.
func (t *tally) stats() (Stats, error) {
	s := Stats{Released: t.released, Embargoed: t.embargoed, Malformed: t.malformed, Days: []Day{}}
	for d, n := range t.days {
		switch {
		case n < 0:
			return s, errors.New("public index: the manifest's day counts disagree with its segments")
		case n > 0:
			s.Days = append(s.Days, Day{Date: time.Unix(d*86400, 0).UTC().Format(time.DateOnly), Captures: n})
		}
	}
	if s.Released < 0 || s.Embargoed < 0 {
		return s, errors.New("public index: the manifest's totals disagree with its segments")
	}
	slices.SortFunc(s.Days, func(a, b Day) int { return cmp.Compare(a.Date, b.Date) })
	return s, nil
}
