package lookup

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// toCapture turns one merged capture of the public index into an answer's capture. Its
// strings are copies: the index's lines are valid only during the lookup.
func toCapture(m *pubindex.Capture) capture {
	f := &m.Block
	c := capture{
		mime: shared.string(f.Mime), file: shared.path(f.Filename), time: m.Time, releaseAt: m.ReleaseAt,
		offset: f.Offset, length: f.Length, status: uint16(f.Status),
		released: string(f.State) == public.StateReleased, revisit: f.Revisit,
		usage: shared.list(f.Usage), usageRobots: shared.list(f.UsageRobots), usageHeader: shared.list(f.UsageHeader),
	}
	if len(f.EmbargoSource) > 0 {
		c.embargoSource = shared.string(f.EmbargoSource)
	}
	var b strings.Builder
	b.Grow(len(m.Key) + len(f.URL) + len(f.Digest) + len(m.Headers))
	b.Write(m.Key)
	b.Write(f.URL)
	b.Write(f.Digest)
	b.Write(m.Headers)
	c.text = b.String()
	c.keyEnd = uint32(len(m.Key))
	c.urlEnd = c.keyEnd + uint32(len(f.URL))
	c.digestEnd = c.urlEnd + uint32(len(f.Digest))
	return c
}

// maxShared bounds the values the interner keeps: mime types, record files and Content-Usage
// lists repeat across captures, and sharing them saves allocations in every answer. Past the
// bound, values are copied instead; memory stays bounded whatever the archive holds.
const maxShared = 4096

// interner shares the strings and lists that many captures repeat. Lookups read an immutable
// map without a lock; a new value copies the map (rare once the values are known).
type interner struct {
	mu    sync.Mutex // serialises additions
	table atomic.Pointer[sharedTable]
}

// sharedTable is one version of the interner's maps.
type sharedTable struct {
	strings map[string]string
	paths   map[string]string // CDXJ filename → path relative to public/
	lists   map[string][]string
}

var shared = newInterner()

func newInterner() *interner {
	in := &interner{}
	in.table.Store(&sharedTable{strings: map[string]string{}, paths: map[string]string{}, lists: map[string][]string{}})
	return in
}

// string returns a shared copy of b.
func (in *interner) string(b []byte) string {
	if s, ok := in.table.Load().strings[string(b)]; ok {
		return s
	}
	s := string(b)
	in.add(func(t *sharedTable) { t.strings[s] = s })
	return s
}

// path returns, shared, the path relative to public/ of the file a CDXJ filename names (its
// name alone, or the path that lines of earlier versions hold).
func (in *interner) path(filename []byte) string {
	if p, ok := in.table.Load().paths[string(filename)]; ok {
		return p
	}
	key, p := string(filename), string(filename)
	if !bytes.Contains(filename, []byte("/")) {
		p = public.PathOf(key)
	}
	in.add(func(t *sharedTable) { t.paths[key] = p })
	return p
}

// list returns the decoding of a raw JSON array of strings (checked when the line was
// parsed), shared; nil for an absent or empty one. Callers never modify it.
func (in *interner) list(raw []byte) []string {
	if len(raw) == 0 {
		return nil
	}
	if l, ok := in.table.Load().lists[string(raw)]; ok {
		return l
	}
	var l []string
	if json.Unmarshal(raw, &l) != nil || len(l) == 0 {
		l = nil
	}
	key := string(raw)
	in.add(func(t *sharedTable) { t.lists[key] = l })
	return l
}

// add publishes a copy of the table with one more value, unless the table is full.
func (in *interner) add(set func(*sharedTable)) {
	in.mu.Lock()
	defer in.mu.Unlock()
	old := in.table.Load()
	if len(old.strings)+len(old.paths)+len(old.lists) >= maxShared {
		return
	}
	t := &sharedTable{strings: maps.Clone(old.strings), paths: maps.Clone(old.paths), lists: maps.Clone(old.lists)}
	set(t)
	in.table.Store(t)
}
