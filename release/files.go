package release

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/warcrecord"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
	"github.com/klauspost/compress/gzip"
)

// Public file and directory modes: the public side is world-readable.
const (
	publicDirMode  = 0o755
	publicFileMode = 0o644
)

// File name prefixes of the public files.
const (
	shardPrefix = public.ShardPrefix
	tombPrefix  = public.TombstonePrefix
)

// fileSet is the public WARC files one commit writes, shards or tombstone files, each with its
// CDXJ: under release-tmp/ until the commit renames them into public/.
type fileSet struct {
	serial map[string]int // the next serial of each prefix (those of the last commit's files, plus one)
	files  []*warcFile
	cur    *warcFile
}

// rotate starts a new file when there is none yet or adding size bytes to a non-empty one would pass limit.
func (fs *fileSet) rotate(p *pass, size, limit int64, prefix, subdir, description string) error {
	if fs.cur != nil && (len(fs.cur.lines) == 0 || fs.cur.offset()+size <= limit) {
		return nil
	}
	w, err := fs.newFile(p, prefix, subdir, description)
	if err != nil {
		return err
	}
	fs.files = append(fs.files, w)
	fs.cur = w
	return nil
}

// newFile starts a public WARC file of pass p under release-tmp/, the next of its prefix, with its
// warcinfo record.
func (fs *fileSet) newFile(p *pass, prefix, subdir, description string) (*warcFile, error) {
	name := public.WARCName(prefix, p.now, fs.serial[prefix])
	fs.serial[prefix]++
	w, err := createWARCFile(layout.ReleaseTmp(p.r.dir), subdir+"/"+name, p.sealed.copier())
	if err != nil {
		return nil, err
	}
	info, err := warcinfo(p.r.opt.Software, name, p.now, description)
	if err == nil {
		_, _, err = w.writeRecord(info)
	}
	if err != nil {
		w.abort()
		return nil, err
	}
	return w, nil
}

// finish writes out every file and returns the renames of the commit and the files, open, which
// commit syncs (and closes) together with release-tmp/ and the journal's temp file. The copier
// may still be copying into them: wait waits for it.
func (fs *fileSet) finish(dataDir string) ([]journalFile, []*os.File, error) {
	var out []journalFile
	var files []*os.File
	for _, w := range fs.files {
		jf, fl, err := w.finish()
		if err != nil {
			closeAll(files)
			return nil, nil, err
		}
		files = append(files, fl...)
		for _, f := range jf {
			rel, err := filepath.Rel(dataDir, f.Tmp)
			if err != nil {
				closeAll(files)
				return nil, nil, err
			}
			out = append(out, journalFile{Tmp: filepath.ToSlash(rel), Public: f.Public})
		}
	}
	return out, files, nil
}

// wait returns once the copier has copied every range of the files, with its error.
func (fs *fileSet) wait() error {
	for _, w := range fs.files {
		if err := w.cp.wait(); err != nil {
			return err
		}
	}
	return nil
}

// closeAll closes files.
func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// abort deletes every temp file.
func (fs *fileSet) abort() {
	for _, w := range fs.files {
		w.abort()
	}
}

// nextSerial is one more than the largest serial of the files named PREFIX-<ts>-<serial>.warc.gz in dir.
func nextSerial(dir, prefix string) (int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	max := 0
	for _, e := range ents {
		if n, ok := public.Serial(e.Name(), prefix); ok && n > max {
			max = n
		}
	}
	return max + 1, nil
}

// warcFile is one public WARC file (with its CDXJ) being written under release-tmp/ before
// the commit renames both into public/. Members are appended; nothing is ever rewritten.
type warcFile struct {
	rel    string // name relative to public/, e.g. "shards/PUBLIC-20261129000000-00001.warc.gz"
	tmp    string // its temp path
	f      *os.File
	bw     *bufio.Writer
	gz     *gzip.Writer
	cp     *copier  // copies the sealed ranges, in order, off the pass's goroutine
	n      int64    // bytes written through bw so far
	queued int64    // sealed bytes handed to cp so far
	pend   pending  // sealed bytes still to copy, after what bw holds and cp was given
	lines  [][]byte // CDXJ lines, sorted when the file is finished
}

// pending is a byte range of a sealed file that is yet to be copied into a public file. Adjacent
// members (a capture's request, response and metadata; consecutive captures) grow one range, handed
// to the copier when something else must be written, when it reaches copyChunk or when the file
// is finished.
type pending struct {
	src    *os.File
	off, n int64
}

// copyChunk is how much of one adjacent range gathers before the copier is given it: the copy and
// its writeback then run while the pass goes on with the captures that follow.
const copyChunk = 4 << 20

// createWARCFile opens a temp file for the public file rel, whose sealed ranges cp copies.
func createWARCFile(tmpDir, rel string, cp *copier) (*warcFile, error) {
	tmp := filepath.Join(tmpDir, filepath.Base(rel))
	f, err := durable.Create(tmp, publicFileMode)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", tmp, err)
	}
	w := &warcFile{rel: rel, tmp: tmp, f: f, cp: cp}
	w.bw = bufio.NewWriterSize(countWriter{w}, 256<<10)
	return w, nil
}

// countWriter counts the bytes that reach the file.
type countWriter struct{ w *warcFile }

// Write writes p to the file, after every copy queued before it, and counts it.
func (c countWriter) Write(p []byte) (int, error) {
	if err := c.w.cp.wait(); err != nil {
		return 0, err
	}
	n, err := c.w.f.Write(p)
	c.w.n += int64(n)
	if err == nil {
		crashPoint("written") // records the pass made (a warcinfo, tombstones), in a temp file
	}
	return n, err
}

// offset is where the next member starts.
func (w *warcFile) offset() int64 { return w.n + int64(w.bw.Buffered()) + w.queued + w.pend.n }

// writeRecord compresses one serialised record as a new gzip member and returns its location.
func (w *warcFile) writeRecord(rec []byte) (off, length int64, err error) {
	if err := w.flushPending(); err != nil {
		return 0, 0, err
	}
	off = w.offset()
	if w.gz == nil {
		w.gz, err = gzip.NewWriterLevel(w.bw, gzip.DefaultCompression)
		if err != nil {
			return 0, 0, fmt.Errorf("gzip: %w", err)
		}
	} else {
		w.gz.Reset(w.bw)
	}
	if _, err = w.gz.Write(rec); err != nil {
		return 0, 0, fmt.Errorf("write %s: %w", w.rel, err)
	}
	if err = w.gz.Close(); err != nil {
		return 0, 0, fmt.Errorf("write %s: %w", w.rel, err)
	}
	return off, w.offset() - off, nil
}

// copyRange appends length bytes of src at off (one or more whole sealed gzip members) and returns
// where they start in w.
func (w *warcFile) copyRange(src *os.File, off, length int64) (int64, error) {
	at := w.offset()
	if w.pend.src == src && w.pend.off+w.pend.n == off {
		w.pend.n += length
		if w.pend.n >= copyChunk {
			return at, w.flushPending()
		}
		return at, nil
	}
	if err := w.flushPending(); err != nil {
		return 0, err
	}
	w.pend = pending{src: src, off: off, n: length}
	return at, nil
}

// flushPending hands the pending sealed range to the copier, after what bw holds.
func (w *warcFile) flushPending() error {
	p := w.pend
	if p.n == 0 {
		return nil
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", w.rel, err)
	}
	w.cp.queue(copyJob{dst: w.f, name: w.rel, at: w.n + w.queued, src: p.src, off: p.off, n: p.n})
	w.queued += p.n
	w.pend = pending{}
	return nil
}

// finish hands what w holds to the file (its last sealed range to the copier, which may still be
// copying: fileSet.wait waits for it) and writes its byte-sorted CDXJ beside it, and returns the
// temp → public renames the commit must make (the WARC first, so no CDXJ line ever points at a
// file that is not there yet) and the two files, open, for the caller to sync and close (commit
// syncs the files of a commit all at once).
func (w *warcFile) finish() ([]journalFile, []*os.File, error) {
	if err := w.flushPending(); err != nil {
		w.f.Close()
		return nil, nil, err
	}
	if err := w.bw.Flush(); err != nil {
		w.f.Close()
		return nil, nil, fmt.Errorf("write %s: %w", w.rel, err)
	}
	sort.Slice(w.lines, func(i, j int) bool { return bytes.Compare(w.lines[i], w.lines[j]) < 0 })
	cdxTmp := public.CDXJName(w.tmp)
	cdx, err := durable.Create(cdxTmp, publicFileMode)
	if err == nil {
		if _, err = cdx.Write(bytes.Join(w.lines, nil)); err != nil {
			cdx.Close()
		}
	}
	if err != nil {
		w.f.Close()
		return nil, nil, fmt.Errorf("write %s: %w", cdxTmp, err)
	}
	return []journalFile{{Tmp: w.tmp, Public: w.rel}, {Tmp: cdxTmp, Public: public.CDXJName(w.rel)}}, []*os.File{w.f, cdx}, nil
}

// abort closes and deletes the temp file and its CDXJ, once no copy into it runs.
func (w *warcFile) abort() {
	w.cp.wait()
	w.f.Close()
	os.Remove(w.tmp)
	os.Remove(public.CDXJName(w.tmp))
}

// createPublic creates (or truncates) path with the public file mode, whatever the umask.
func createPublic(path string) (*os.File, error) { return durable.Create(path, publicFileMode) }

// writeFile writes b to path with the public file mode (whatever the umask), unsynced.
func writeFile(path string, b []byte) error {
	f, err := createPublic(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// The WARC record types the releaser writes itself.
const (
	typeWarcinfo = "warcinfo"
	typeMetadata = "metadata"
)

// recordID is the WARC-Record-ID of a public record the releaser writes itself, derived from seed.
// Public records get ids that depend only on what they describe, so a replayed pass writes the same bytes.
func recordID(seed string) string { return store.DerivedRecordID("archivectl-release:" + seed) }

// warcinfo is the first record of every public file.
func warcinfo(software, name string, pass time.Time, description string) ([]byte, error) {
	block := warcrecord.WarcinfoBlock(software,
		[2]string{"description", description},
		[2]string{"release-pass", pass.UTC().Format(time.RFC3339)})
	rec, err := warcrecord.Marshal(typeWarcinfo, recordID("warcinfo:"+name), pass, "application/warc-fields", block,
		[2]string{"WARC-Filename", name})
	if err != nil {
		return nil, err
	}
	return rec, nil
}
