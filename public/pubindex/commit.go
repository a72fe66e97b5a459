package pubindex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// fanIn is how many segments of one tier are merged into one.
const fanIn = 4

// Commit is one release commit's change to the public index: written by Prepare, journaled
// by the caller with the rest of the commit, and applied by renaming Files into public/index/,
// then WriteManifest, then RemoveSegments. Every step may run again after a crash.
type Commit struct {
	Files    []File   `json:"files"`    // new segments, fsynced (but by PrepareUnsynced), to rename into public/index/
	Manifest Manifest `json:"manifest"` // the new manifest
	Remove   []string `json:"remove"`   // segments the new manifest no longer lists
}

// Apply performs a prepared commit without a journal: renames its segments into
// public/index/ under publicDir, writes its manifest, removes the segments it drops. For
// tools that own a public directory outright (generators, tests); a release pass journals
// these same steps with the rest of its commit.
func Apply(publicDir string, c *Commit) error {
	if err := os.MkdirAll(filepath.Join(publicDir, Dir), 0o755); err != nil {
		return fmt.Errorf("public index: %w", err)
	}
	for _, f := range c.Files {
		if err := os.Rename(f.Tmp, filepath.Join(publicDir, Dir, f.Name)); err != nil {
			return fmt.Errorf("public index: %w", err)
		}
	}
	if err := WriteManifest(publicDir, c.Manifest); err != nil {
		return err
	}
	return RemoveSegments(publicDir, c.Remove)
}

// File is one new segment: its temporary path and its name under public/index/.
type File struct {
	Tmp  string `json:"tmp"`
	Name string `json:"name"`
}

// Prepare writes, under tmpDir, the segment of one commit's CDXJ lines (any order) for
// generation gen and whatever merges the tier rule then asks for, and returns the commit. set
// is the index of publicDir as it stands, opened by the caller (who keeps it open across
// commits, so that each Open after a commit reads only the new segments' tables); nil opens
// it for this commit alone. The index is only read.
func Prepare(set *Set, publicDir, tmpDir string, gen int64, lines [][]byte) (*Commit, error) {
	return prepare(set, publicDir, tmpDir, gen, lines, true)
}

// PrepareUnsynced is Prepare without fsyncing the segments it writes: for a caller that
// fsyncs c.Files itself, together with the other files of its commit, before journaling it.
func PrepareUnsynced(set *Set, publicDir, tmpDir string, gen int64, lines [][]byte) (*Commit, error) {
	return prepare(set, publicDir, tmpDir, gen, lines, false)
}

func prepare(set *Set, publicDir, tmpDir string, gen int64, lines [][]byte, sync bool) (_ *Commit, err error) {
	fsys := os.DirFS(publicDir)
	if set == nil {
		if set, err = Open(fsys, nil); err != nil {
			return nil, err
		}
		defer set.Close()
	}
	sorted := slices.Clone(lines)
	slices.SortFunc(sorted, compareLines)
	parsed := make([]Capture, len(sorted))
	for i, l := range sorted {
		r, err := ParseLine(l)
		if err != nil {
			return nil, fmt.Errorf("public index: a commit line is malformed (%v): %.120q", err, l)
		}
		parsed[i] = Capture{Raw: r, Headers: r.Block.Headers}
	}
	t, err := newTally(set.Manifest.Stats)
	if err != nil {
		return nil, err
	}
	if err := t.addCommit(set, sorted, parsed); err != nil {
		return nil, err
	}
	c := &Commit{Manifest: Manifest{Generation: gen, Segments: slices.Clone(set.Manifest.Segments)}}
	defer func() {
		if err != nil {
			c.abort()
		}
	}()
	if c.Manifest.Stats, err = t.stats(); err != nil {
		return nil, err
	}
	names := newNamer(publicDir, tmpDir, gen, set.Manifest.Segments)
	if len(sorted) > 0 {
		name := names.next()
		tmp := filepath.Join(tmpDir, name)
		i := 0
		info, err := writeSegment(tmp, sync, func() ([]byte, error) {
			if i == len(sorted) {
				return nil, nil
			}
			i++
			return sorted[i-1], nil
		})
		if err != nil {
			return nil, err
		}
		info.Name = name
		c.Files = append(c.Files, File{Tmp: tmp, Name: name})
		c.Manifest.Segments = append(c.Manifest.Segments, info)
	}
	if err := c.compact(fsys, set, names, sync); err != nil {
		return nil, err
	}
	return c, nil
}

// addCommit adds to t what the commit's sorted lines change: for each key they touch, the
// captures of its lines in set and in the commit, less those of its lines in set alone. parsed
// are the lines parsed, in the same order.
func (t *tally) addCommit(set *Set, sorted [][]byte, parsed []Capture) error {
	for i := 0; i < len(sorted); {
		key := KeyOf(sorted[i])
		j := i + 1
		for j < len(sorted) && string(KeyOf(sorted[j])) == string(key) {
			j++
		}
		var old [][]byte
		err := set.Lookup(string(key), func(ls [][]byte) error {
			for _, l := range ls {
				old = append(old, slices.Clone(l))
			}
			return nil
		})
		if err != nil {
			return err
		}
		held := parseCaptures(old)
		t.add(merge(held), -1)
		t.add(merge(slices.Concat(held, parsed[i:j])), +1) // Merge(old and the commit's lines)
		i = j
	}
	return nil
}

// compact applies the tier rule to c's segments until no tier holds fanIn of them.
func (c *Commit) compact(fsys fs.FS, set *Set, names *namer, sync bool) error {
	open := map[string]*Segment{}
	for _, s := range set.segs {
		open[s.info.Name] = s
	}
	for {
		group := tierToMerge(c.Manifest.Segments)
		if group == nil {
			return nil
		}
		var inputs []*Segment
		for _, i := range group {
			info := c.Manifest.Segments[i]
			s := open[info.Name]
			if s == nil { // written by this commit, not yet public
				var err error
				if s, err = openFile(c.tmpOf(info.Name), info); err != nil {
					return err
				}
				defer s.Close()
			}
			inputs = append(inputs, s)
		}
		name := names.next()
		tmp := filepath.Join(names.tmpDir, name)
		info, err := mergeSegments(tmp, inputs, nil, sync)
		if err != nil {
			return err
		}
		info.Name = name
		var kept []SegmentInfo
		for i, s := range c.Manifest.Segments {
			if !slices.Contains(group, i) {
				kept = append(kept, s)
			} else if c.tmpOf(s.Name) == "" {
				c.Remove = append(c.Remove, s.Name)
			} else {
				c.dropFile(s.Name)
			}
		}
		c.Manifest.Segments = append(kept, info)
		c.Files = append(c.Files, File{Tmp: tmp, Name: name})
	}
}

// tierToMerge returns the positions of the segments of the lowest tier holding fanIn or more.
func tierToMerge(segs []SegmentInfo) []int {
	byTier := map[int][]int{}
	low := -1
	for i, s := range segs {
		t := tier(s.Lines)
		byTier[t] = append(byTier[t], i)
		if len(byTier[t]) >= fanIn && (low < 0 || t < low) {
			low = t
		}
	}
	if low < 0 {
		return nil
	}
	return byTier[low]
}

// tier is floor(log4 lines).
func tier(lines int64) int {
	t := 0
	for n := lines; n >= fanIn; n /= fanIn {
		t++
	}
	return t
}

// tmpOf is the temporary path of a segment this commit wrote, or "".
func (c *Commit) tmpOf(name string) string {
	for _, f := range c.Files {
		if f.Name == name {
			return f.Tmp
		}
	}
	return ""
}

// dropFile deletes a segment this commit wrote and then merged away.
func (c *Commit) dropFile(name string) {
	c.Files = slices.DeleteFunc(c.Files, func(f File) bool {
		if f.Name == name {
			os.Remove(f.Tmp)
			return true
		}
		return false
	})
}

// abort deletes every file the commit wrote.
func (c *Commit) abort() {
	for _, f := range c.Files {
		os.Remove(f.Tmp)
	}
}

// namer hands out segment names for one generation that no file uses yet.
type namer struct {
	publicDir, tmpDir string
	gen               int64
	k                 int
	taken             map[string]bool
}

func newNamer(publicDir, tmpDir string, gen int64, segs []SegmentInfo) *namer {
	n := &namer{publicDir: publicDir, tmpDir: tmpDir, gen: gen, taken: map[string]bool{}}
	for _, s := range segs {
		n.taken[s.Name] = true
	}
	return n
}

func (n *namer) next() string {
	for ; ; n.k++ {
		name := SegmentName(n.gen, n.k)
		if n.taken[name] || exists(filepath.Join(n.publicDir, Dir, name)) || exists(filepath.Join(n.tmpDir, name)) {
			continue
		}
		n.taken[name] = true
		n.k++
		return name
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

// Close releases the set's segments now: only for a set nothing else reads (a lookup's sets
// are released when they are no longer reachable).
func (s *Set) Close() {
	for _, seg := range s.segs {
		seg.Close()
	}
}
