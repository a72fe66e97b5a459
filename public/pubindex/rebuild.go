package pubindex

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/public"
)

// runBytes is how many bytes of lines Rebuild sorts in memory at a time. A variable only so
// that tests can make rebuilds of several runs.
var runBytes = 64 << 20

// Rebuild writes the index of the public directory publicDir afresh from its CDXJ files, as
// generation gen: every line is read, checked (a malformed one is logged, counted and left
// out), sorted in runs of runBytes, and the runs merged into one segment. The new manifest
// replaces the old one in one step, and the files it no longer lists are removed. Only the one
// writer of public/ may call it (the caller holds the release lock).
func Rebuild(ctx context.Context, publicDir string, gen int64, log *slog.Logger) (Manifest, error) {
	dir := filepath.Join(publicDir, Dir)
	if err := durable.MkdirAll(dir, 0o755); err != nil {
		return Manifest{}, fmt.Errorf("public index: %w", err)
	}
	names, err := public.CDXJFiles(os.DirFS(publicDir))
	if err != nil {
		return Manifest{}, err
	}
	b := &builder{dir: dir, t: &tally{days: map[int64]int64{}}, bounds: shardBounds{dir: publicDir, sizes: map[string]int64{}}}
	defer b.cleanup()
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return Manifest{}, err
		}
		if err := b.readFile(publicDir, name, log); err != nil {
			return Manifest{}, err
		}
	}
	if err := b.flushRun(); err != nil {
		return Manifest{}, err
	}
	old, _, _ := ReadManifest(os.DirFS(publicDir)) // a damaged one names nothing to avoid
	m := Manifest{Generation: gen}
	if len(b.runs) > 0 {
		name := newNamer(publicDir, dir, gen, old.Segments).next()
		tmp := filepath.Join(dir, name+".tmp")
		info, err := mergeSegments(tmp, b.runs, b.t, true)
		if err != nil {
			return Manifest{}, err
		}
		if err := durable.Rename(tmp, filepath.Join(dir, name)); err != nil {
			os.Remove(tmp)
			return Manifest{}, fmt.Errorf("public index: %w", err)
		}
		info.Name = name
		m.Segments = []SegmentInfo{info}
	}
	b.t.malformed = b.malformed
	if m.Stats, err = b.t.stats(); err != nil {
		return Manifest{}, err
	}
	if err := WriteManifest(publicDir, m); err != nil {
		return Manifest{}, err
	}
	b.cleanup()
	return m, Clean(publicDir)
}

// builder collects a rebuild's lines into sorted runs.
type builder struct {
	dir       string
	arena     []byte
	lines     [][]byte
	runs      []*Segment
	paths     []string
	t         *tally
	malformed int64
	bounds    shardBounds
}

// readFile adds the lines of one CDXJ file.
func (b *builder) readFile(publicDir, name string, log *slog.Logger) error {
	f, err := os.Open(filepath.Join(publicDir, filepath.FromSlash(name)))
	if err != nil {
		return fmt.Errorf("public index: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	for n := 1; ; n++ {
		line, rerr := readLine(br)
		if len(line) > 0 {
			if r, err := ParseLine(line); err != nil {
				b.malformed++
				log.Warn("skipping malformed CDXJ line", "file", name, "line", n, "err", err)
			} else {
				if err := b.bounds.check(&r); err != nil {
					log.Warn("released capture whose record will not be served", "cdxj", name, "line", n, "url", string(r.Block.URL), "err", err)
				}
				if err := b.add(Rekey(line, &r)); err != nil {
					return err
				}
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("public index: read public/%s: %w", name, rerr)
		}
	}
}

// add keeps one line (without its newline), writing a run first when the arena is full.
func (b *builder) add(line []byte) error {
	if b.arena == nil {
		b.arena = make([]byte, 0, runBytes+maxLine+1)
	}
	if len(b.arena)+len(line)+1 > cap(b.arena) {
		if err := b.flushRun(); err != nil {
			return err
		}
	}
	start := len(b.arena)
	b.arena = append(append(b.arena, line...), '\n')
	b.lines = append(b.lines, b.arena[start:len(b.arena):len(b.arena)])
	return nil
}

// flushRun sorts the lines collected and writes them as a run segment.
func (b *builder) flushRun() error {
	if len(b.lines) == 0 {
		return nil
	}
	slices.SortFunc(b.lines, compareLines)
	p := filepath.Join(b.dir, fmt.Sprintf("rebuild-%d.tmp", len(b.runs)))
	i := 0
	info, err := writeSegment(p, true, func() ([]byte, error) {
		if i == len(b.lines) {
			return nil, nil
		}
		i++
		return b.lines[i-1], nil
	})
	if err != nil {
		return err
	}
	b.paths = append(b.paths, p)
	info.Name = filepath.Base(p)
	s, err := openFile(p, info)
	if err != nil {
		return err
	}
	b.runs = append(b.runs, s)
	clear(b.lines)
	b.lines, b.arena = b.lines[:0], b.arena[:0]
	return nil
}

// cleanup releases and deletes the runs.
func (b *builder) cleanup() {
	for _, s := range b.runs {
		s.Close()
	}
	for _, p := range b.paths {
		os.Remove(p)
	}
	b.runs, b.paths = nil, nil
}

// mergeSegments writes the lines of inputs, merged, as one segment at dst; with t, it also
// counts their captures there. The file is fsynced if sync.
func mergeSegments(dst string, inputs []*Segment, t *tally, sync bool) (SegmentInfo, error) {
	w, err := createSegment(dst, sync)
	if err != nil {
		return SegmentInfo{}, err
	}
	err = (&Set{segs: inputs}).Scan("", func(key []byte, lines [][]byte) (bool, error) {
		slices.SortFunc(lines, bytes.Compare) // one key: line order
		for _, l := range lines {
			if err := w.add(l); err != nil {
				return false, err
			}
		}
		if t != nil {
			t.add(Merge(lines), +1)
		}
		return true, nil
	})
	if err != nil {
		w.abort()
		return SegmentInfo{}, err
	}
	return w.finish()
}

// readLine returns the next line without its end; a line longer than maxLine bytes (its newline
// included: public.MaxLineBytes, what FormatLine writes at most) comes back as a marker that fails
// to parse, so it is counted as malformed rather than ending the file.
func readLine(br *bufio.Reader) ([]byte, error) {
	b, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		long := append([]byte(nil), b...)
		for err == bufio.ErrBufferFull {
			b, err = br.ReadSlice('\n')
			if len(long) <= maxLine {
				long = append(long, b...)
			}
		}
		if len(long) > maxLine {
			return []byte("line too long"), err
		}
		b = long
	}
	return bytes.TrimRight(b, "\r\n"), err
}

// shardBounds checks, while a rebuild reads the CDXJ files, that each released capture's record
// lies inside its shard. A line whose record runs past the end of the file (a length of 10^15)
// is still indexed: its capture stays listed (its tombstone facts are sound, and a revisit's
// payload comes from its original), and the lookup refuses its record from the shard's size
// before reading a byte of it. A shard that cannot be statted is left to the lookup to report.
type shardBounds struct {
	dir   string           // the public directory
	sizes map[string]int64 // -1: not statted
}

// check returns why r's record cannot lie where its line says, or nil.
func (sb shardBounds) check(r *public.Raw) error {
	f := &r.Block
	if string(f.State) != public.StateReleased {
		return nil
	}
	name := public.PathOf(string(f.Filename))
	size, ok := sb.sizes[name]
	if !ok {
		size = -1
		if fi, err := os.Stat(filepath.Join(sb.dir, filepath.FromSlash(name))); err == nil {
			size = fi.Size()
		}
		sb.sizes[name] = size
	}
	if size >= 0 && (f.Offset < 0 || f.Length <= 0 || f.Offset > size || f.Length > size-f.Offset) {
		return fmt.Errorf("the indexed record (offset %d, length %d) runs past the end of public/%s (%d bytes)", f.Offset, f.Length, name, size)
	}
	return nil
}
