package lookup

// The in-memory index the lookup used before the public index (public/pubindex): every CDXJ
// line of public/ parsed into memory, sorted and merged at load. Kept for the tests only, as
// the reference the on-disk index must answer exactly like (TestIndexAnswersAsInMemory).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/archivectl/archivectl/public"
)

// memCapture is a capture of the in-memory index with the hash of its capture id.
type memCapture struct {
	capture
	id uint64
}

// memIndex is every capture sorted by SURT, newest first within a SURT.
type memIndex struct {
	captures            []memCapture
	released, embargoed int
	badLines            int
	days                []dayCount
}

// loadMemIndex reads every *.cdxj under shards/ and tombstones/ of fsys.
func loadMemIndex(fsys fs.FS) (*memIndex, error) {
	names, err := public.CDXJFiles(fsys)
	if err != nil {
		return nil, err
	}
	seed := maphash.MakeSeed()
	ix := &memIndex{}
	for _, name := range names {
		if err := ix.readFile(fsys, name, seed); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(ix.captures, func(a, b memCapture) int { return compareCaptures(a.capture, b.capture) })
	ix.captures = memDedupe(ix.captures)
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
	return ix, nil
}

// readFile parses one CDXJ file; malformed lines are counted and skipped.
func (ix *memIndex) readFile(fsys fs.FS, name string, seed maphash.Seed) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	for {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return fmt.Errorf("%s: a line too long for the reference loader", name)
		}
		if b = bytes.TrimRight(b, "\r\n"); len(b) > 0 {
			if c, cerr := memToCapture(b, seed); cerr != nil {
				ix.badLines++
			} else {
				ix.captures = append(ix.captures, c)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// memToCapture turns one line into a capture, as the in-memory loader did.
func memToCapture(line []byte, seed maphash.Seed) (memCapture, error) {
	p, err := public.Parse(line)
	if err != nil {
		return memCapture{}, err
	}
	f := &p.Block
	c := capture{
		mime: string(f.Mime), file: public.PathOf(string(f.Filename)), time: p.Time, releaseAt: p.ReleaseAt,
		offset: f.Offset, length: f.Length, status: uint16(f.Status),
		released: string(f.State) == public.StateReleased, revisit: f.Revisit,
	}
	if c.released {
		if c.file == "" || c.length == 0 {
			return memCapture{}, fmt.Errorf("released capture %s has no record location", f.URL)
		}
		if !fs.ValidPath(c.file) || !strings.HasPrefix(c.file, "shards/") {
			return memCapture{}, fmt.Errorf("record file %q is not under shards/", c.file)
		}
	}
	for _, l := range []struct {
		raw []byte
		dst *[]string
	}{{f.Usage, &c.usage}, {f.UsageRobots, &c.usageRobots}, {f.UsageHeader, &c.usageHeader}} {
		if len(l.raw) > 0 {
			if err := json.Unmarshal(l.raw, l.dst); err != nil {
				return memCapture{}, err
			}
			if len(*l.dst) == 0 {
				*l.dst = nil
			}
		}
	}
	var id uint64
	switch {
	case f.IDEscaped:
		b, err := f.AppendID(nil)
		if err != nil {
			return memCapture{}, err
		}
		id = maphash.Bytes(seed, b)
	case len(f.ID) > 0:
		id = maphash.Bytes(seed, f.ID)
	default:
		id = maphash.String(seed, string(p.Key)+" "+string(f.Time)+" "+string(f.Digest))
	}
	c.text = string(p.Key) + string(f.URL) + string(f.Digest) + string(f.Headers)
	c.keyEnd = uint32(len(p.Key))
	c.urlEnd = c.keyEnd + uint32(len(f.URL))
	c.digestEnd = c.urlEnd + uint32(len(f.Digest))
	return memCapture{c, id}, nil
}

// memDedupe merges the lines of one capture (same key, time and id): the released line wins
// and keeps the header fields of a tombstone line.
func memDedupe(cs []memCapture) []memCapture {
	out := cs[:0]
	run := 0
	for _, c := range cs {
		if len(out) > run && (out[run].time != c.time || out[run].key() != c.key()) {
			run = len(out)
		}
		merged := false
		for j := run; j < len(out); j++ {
			if out[j].id == c.id {
				if out[j].digestEnd == uint32(len(out[j].text)) && c.digestEnd < uint32(len(c.text)) {
					out[j].text = out[j].text[:out[j].digestEnd] + c.headers()
				}
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, c)
		}
	}
	return out
}

// exact returns the captures whose SURT is key, newest first.
func (ix *memIndex) exact(key string) []capture {
	lo, _ := slices.BinarySearchFunc(ix.captures, key, func(c memCapture, k string) int { return strings.Compare(c.key(), k) })
	var out []capture
	for i := lo; i < len(ix.captures) && ix.captures[i].key() == key; i++ {
		out = append(out, ix.captures[i].capture)
	}
	return out
}

// prefix is the in-memory prefix page: up to limit captures matching m after the cursor.
func (ix *memIndex) prefix(m matcher, after cursor, limit int) (page []capture, more bool) {
	i, _ := slices.BinarySearchFunc(ix.captures, m.from, func(c memCapture, k string) int { return strings.Compare(c.key(), k) })
	if after.key != "" {
		j, found := slices.BinarySearchFunc(ix.captures, after.capture(), func(c memCapture, k capture) int { return compareCaptures(c.capture, k) })
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
		page = append(page, c.capture)
	}
	return page, false
}
