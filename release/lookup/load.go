package lookup

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/archivectl/archivectl/release/pubindex"
	"github.com/archivectl/archivectl/release/public"
)

// toCapture turns one merged capture of the public index into an answer's capture. Its
// strings are copies: the index's lines are valid only during the lookup.
func toCapture(m *pubindex.Capture) capture {
	f := &m.Block
	c := capture{
		mime: shared.string(f.Mime), file: shared.string(f.Filename), time: m.Time, releaseAt: m.ReleaseAt,
		offset: f.Offset, length: f.Length, status: uint16(f.Status),
		released: string(f.State) == public.StateReleased, revisit: f.Revisit,
		usage: shared.list(f.Usage), usageRobots: shared.list(f.UsageRobots), usageHeader: shared.list(f.UsageHeader),
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
// lists repeat across captures, and sharing them saves an allocation per capture per answer.
// Past the bound, values are copied instead; memory stays bounded whatever the archive holds.
const maxShared = 4096

// interner shares the strings and lists that many captures repeat.
type interner struct {
	mu      sync.RWMutex
	strings map[string]string
	lists   map[string][]string
}

var shared = &interner{strings: map[string]string{}, lists: map[string][]string{}}

// string returns a shared copy of b.
func (in *interner) string(b []byte) string {
	in.mu.RLock()
	s, ok := in.strings[string(b)]
	in.mu.RUnlock()
	if ok {
		return s
	}
	s = string(b)
	in.mu.Lock()
	if len(in.strings) < maxShared {
		in.strings[s] = s
	}
	in.mu.Unlock()
	return s
}

// list returns the decoding of a raw JSON array of strings (checked when the line was
// parsed), shared; nil for an absent or empty one. Callers never modify it.
func (in *interner) list(raw []byte) []string {
	if len(raw) == 0 {
		return nil
	}
	in.mu.RLock()
	l, ok := in.lists[string(raw)]
	in.mu.RUnlock()
	if ok {
		return l
	}
	if json.Unmarshal(raw, &l) != nil || len(l) == 0 {
		l = nil
	}
	in.mu.Lock()
	if len(in.lists) < maxShared {
		in.lists[string(raw)] = l
	}
	in.mu.Unlock()
	return l
}
