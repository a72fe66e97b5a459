package lookup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"strings"

	"github.com/archivectl/archivectl/release/public"
)

// maxLine bounds one CDXJ line; a longer one is skipped as malformed.
const maxLine = 1 << 20

// chunk is how many captures readFile collects before starting a new slice: growing one
// slice of a million captures would copy (and write-barrier) every one of them many times.
const chunk = 8192

// fileResult is what one CDXJ file yielded.
type fileResult struct {
	chunks [][]capture
	bad    []badLine
	err    error
}

// badLine is a skipped line: its number and why.
type badLine struct {
	line int
	err  error
}

// readFile parses one CDXJ file of the public directory.
func readFile(fsys fs.FS, name string, seed maphash.Seed) (r fileResult) {
	f, err := fsys.Open(name)
	if err != nil {
		r.err = fmt.Errorf("open public/%s: %w", name, err)
		return r
	}
	defer f.Close()
	in := newInterner()
	br := bufio.NewReaderSize(f, 256<<10)
	cur := make([]capture, 0, chunk)
	defer func() { r.chunks = append(r.chunks, cur) }()
	for n := 1; ; n++ {
		b, err := readLine(br)
		if len(b) > 0 {
			if p, perr := public.Parse(b); perr != nil {
				r.bad = append(r.bad, badLine{n, perr})
			} else if c, cerr := toCapture(p, in, seed); cerr != nil {
				r.bad = append(r.bad, badLine{n, cerr})
			} else {
				if len(cur) == chunk {
					r.chunks = append(r.chunks, cur)
					cur = make([]capture, 0, chunk)
				}
				cur = append(cur, c)
			}
		}
		if err == io.EOF {
			return r
		}
		if err != nil {
			r.err = fmt.Errorf("read public/%s: %w", name, err)
			return r
		}
	}
}

// readLine returns the next line without its end; a line longer than maxLine comes back as
// a marker that fails to parse, so it is counted as malformed rather than ending the file.
func readLine(br *bufio.Reader) ([]byte, error) {
	b, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		long := append([]byte(nil), b...)
		for err == bufio.ErrBufferFull {
			b, err = br.ReadSlice('\n')
			if len(long) < maxLine {
				long = append(long, b...)
			}
		}
		if len(long) >= maxLine {
			return []byte("line too long"), err
		}
		b = long
	}
	return bytes.TrimRight(b, "\r\n"), err
}

// toCapture turns a parsed line into the compact form.
func toCapture(p public.Raw, in *interner, seed maphash.Seed) (capture, error) {
	f := &p.Block
	c := capture{
		mime: in.string(f.Mime), file: in.string(f.Filename), time: p.Time, releaseAt: p.ReleaseAt,
		offset: f.Offset, length: f.Length, status: uint16(f.Status),
		released: string(f.State) == public.StateReleased, revisit: f.Revisit,
	}
	if c.released {
		if c.file == "" || c.length == 0 {
			return c, fmt.Errorf("released capture %s has no record location", f.URL)
		}
		if !fs.ValidPath(c.file) || !strings.HasPrefix(c.file, "shards/") {
			return c, fmt.Errorf("record file %q is not under shards/", c.file)
		}
	}
	var err error
	if c.usage, err = in.list(f.Usage); err != nil {
		return c, fmt.Errorf("usage: %w", err)
	}
	switch {
	case f.IDEscaped:
		id, err := f.AppendID(in.buf[:0])
		if err != nil {
			return c, err
		}
		c.id, in.buf = maphash.Bytes(seed, id), id
	case len(f.ID) > 0:
		c.id = maphash.Bytes(seed, f.ID)
	default: // no id: the capture is its key, time and digest
		c.id = maphash.String(seed, string(p.Key)+" "+string(f.Time)+" "+string(f.Digest))
	}
	var b strings.Builder
	b.Grow(len(p.Key) + len(f.URL) + len(f.Digest) + len(f.Headers))
	b.Write(p.Key)
	b.Write(f.URL)
	b.Write(f.Digest)
	b.Write(f.Headers)
	c.text = b.String()
	c.keyEnd = uint32(len(p.Key))
	c.urlEnd = c.keyEnd + uint32(len(f.URL))
	c.digestEnd = c.urlEnd + uint32(len(f.Digest))
	return c, nil
}

// interner shares, within one file, the strings and lists that many captures repeat.
type interner struct {
	strings map[string]string
	lists   map[string][]string
	buf     []byte // scratch for decoding ids
}

func newInterner() *interner {
	return &interner{strings: map[string]string{}, lists: map[string][]string{}}
}

// string returns the shared copy of b.
func (in *interner) string(b []byte) string {
	if s, ok := in.strings[string(b)]; ok {
		return s
	}
	s := string(b)
	in.strings[s] = s
	return s
}

// list returns the shared decoding of a raw JSON array of strings; nil for an absent or empty one.
func (in *interner) list(raw []byte) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if l, ok := in.lists[string(raw)]; ok {
		return l, nil
	}
	var l []string
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, err
	}
	if len(l) == 0 {
		l = nil
	}
	in.lists[string(raw)] = l
	return l, nil
}
