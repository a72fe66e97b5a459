package export

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"sort"
)

// Package is a WACZ package laid out before a byte of it is sent: its bytes in order, as
// segments that are either its own (zip headers, the index, pages, datapackage.json, a warcinfo
// record) or byte ranges of the public WARC files (the records it packs, never copied into
// memory). So it can be written out whole (WriteTo) or read at any offset (Open, for an HTTP
// Range request), and it holds memory for its own bytes only: O(its records), whatever the size
// of their payloads. Its bytes are fixed by what it packs and its creation time.
type Package struct {
	fsys   fs.FS
	segs   []segment
	starts []int64 // the offset of each segment in the package
	size   int64
	stored []storedEntry
	sum    WACZSummary
}

// storedEntry is the data of a stored (uncompressed) archive/ entry: the segments it spans and the
// CRC-32 its zip header states, which WriteTo checks the bytes against as it copies them.
type storedEntry struct {
	name       string
	first, end int // segments [first, end)
	crc        uint32
}

// Size is the package's length in bytes.
func (p *Package) Size() int64 { return p.size }

// Summary is what the package holds.
func (p *Package) Summary() WACZSummary { return p.sum }

// WriteTo writes the whole package to w, checking each archive/ entry against the CRC-32 its
// header states: a public file that changed after the package was laid out stops the copy.
func (p *Package) WriteTo(ctx context.Context, w io.Writer) (int64, error) {
	fl := newFiles(p.fsys)
	defer fl.close()
	var n int64
	next := 0 // the next stored entry
	var crc = crc32.NewIEEE()
	for i, s := range p.segs {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		in := next < len(p.stored) && i >= p.stored[next].first
		out := w
		if in {
			if i == p.stored[next].first {
				crc.Reset()
			}
			out = io.MultiWriter(w, crc)
		}
		m, err := s.copyTo(out, fl)
		n += m
		if err != nil {
			return n, err
		}
		if in && i == p.stored[next].end-1 {
			if crc.Sum32() != p.stored[next].crc {
				return n, fmt.Errorf("wacz: %s changed while it was being packed", p.stored[next].name)
			}
			next++
		}
	}
	return n, nil
}

// copyTo writes the segment's bytes to w.
func (s segment) copyTo(w io.Writer, fl *files) (int64, error) {
	if s.data != nil {
		n, err := w.Write(s.data)
		return int64(n), err
	}
	sr, err := fl.section(s.loc)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, sr)
	if err != nil {
		return n, fmt.Errorf("copy public/%s: %w", s.loc.File, err)
	}
	if n != s.loc.Length {
		return n, fmt.Errorf("copy public/%s: %d bytes at %d, want %d (the file is shorter)", s.loc.File, n, s.loc.Offset, s.loc.Length)
	}
	return n, nil
}

// PackageReader reads a package at any offset. It opens each public file it needs once; Close
// closes them. It is not safe for concurrent use.
type PackageReader struct {
	*io.SectionReader
	at *packageAt
}

// Open returns a reader of the package's bytes, for io.Copy or http.ServeContent.
func (p *Package) Open() *PackageReader {
	at := &packageAt{p: p, fl: newFiles(p.fsys)}
	return &PackageReader{SectionReader: io.NewSectionReader(at, 0, p.size), at: at}
}

// Close closes the public files the reader opened.
func (r *PackageReader) Close() error {
	r.at.fl.close()
	return nil
}

// packageAt is a Package as an io.ReaderAt.
type packageAt struct {
	p  *Package
	fl *files
}

// ReadAt reads len(b) bytes at off, from the segments that hold them.
func (a *packageAt) ReadAt(b []byte, off int64) (int, error) {
	p := a.p
	if off < 0 {
		return 0, errors.New("wacz: negative offset")
	}
	n := 0
	i := sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > off }) - 1
	for ; n < len(b) && i >= 0 && i < len(p.segs); i++ {
		s, within := p.segs[i], off+int64(n)-p.starts[i]
		var m int
		var err error
		if s.data != nil {
			m = copy(b[n:], s.data[within:])
		} else {
			ra, aerr := a.fl.at(s.loc.File)
			if aerr != nil {
				return n, aerr
			}
			want := min(int64(len(b)-n), s.loc.Length-within)
			m, err = ra.ReadAt(b[n:n+int(want)], s.loc.Offset+within)
			if m < int(want) {
				if err == nil || errors.Is(err, io.EOF) {
					err = fmt.Errorf("read public/%s: %d bytes at %d, want %d (the file is shorter)", s.loc.File, m, s.loc.Offset+within, want)
				}
				return n + m, err
			}
		}
		n += m
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// recorder is what a zip.Writer writes a package into: it keeps the bytes written as the
// package's own segments, but for the stored entries' data, which it records as the segments
// they come from (splice) and whose bytes, written as zeros to keep the writer's count, it drops.
type recorder struct {
	segs   []segment
	starts []int64
	size   int64
	skip   int64 // bytes still to drop, those of a splice
	own    bool  // the last segment is the recorder's own, and may grow
}

func (r *recorder) Write(b []byte) (int, error) {
	n := len(b)
	if r.skip > 0 {
		k := min(int64(len(b)), r.skip)
		r.skip -= k
		b = b[k:]
	}
	if len(b) > 0 {
		if !r.own {
			r.starts = append(r.starts, r.size)
			r.segs = append(r.segs, segment{data: make([]byte, 0, max(len(b), 4096))})
			r.own = true
		}
		last := &r.segs[len(r.segs)-1]
		last.data = append(last.data, b...)
		r.size += int64(len(b))
	}
	return n, nil
}

// splice records segs as the next bytes of the package; the next n bytes written (n the
// segments' length) are dropped. It returns the range of segments they took.
func (r *recorder) splice(segs []segment) (first, end int, n int64) {
	if r.skip != 0 {
		panic("wacz: splice before the last one was written")
	}
	first = len(r.segs)
	for _, s := range segs {
		l := s.loc.Length
		if s.data != nil {
			l = int64(len(s.data))
		}
		if l == 0 {
			continue
		}
		r.starts = append(r.starts, r.size)
		r.segs = append(r.segs, s)
		r.size += l
		n += l
	}
	r.own, r.skip = false, n
	return first, len(r.segs), n
}

// zeros reads as endless zero bytes: what a splice's placeholder is written with.
type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}
