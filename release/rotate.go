package release

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
)

// File name prefixes of the public files.
const (
	shardPrefix = public.ShardPrefix
	tombPrefix  = public.TombstonePrefix
)

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

// newFile starts a public WARC file under release-tmp/ with its warcinfo record.
func (p *pass) newFile(prefix, subdir, description string) (*warcFile, error) {
	name := public.WARCName(prefix, p.now, p.serial[prefix])
	p.serial[prefix]++
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

// fileSet is the public files one commit writes.
type fileSet struct {
	files []*warcFile
	cur   *warcFile
}

// rotate starts a new file when there is none yet or adding size bytes to a non-empty one would pass limit.
func (fs *fileSet) rotate(p *pass, size, limit int64, prefix, subdir, description string) error {
	if fs.cur != nil && (len(fs.cur.lines) == 0 || fs.cur.offset()+size <= limit) {
		return nil
	}
	w, err := p.newFile(prefix, subdir, description)
	if err != nil {
		return err
	}
	fs.files = append(fs.files, w)
	fs.cur = w
	return nil
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

// inParallel runs fn(0…n-1), each on a goroutine of its own, and returns the first error (in
// the order of i), so that an error stays one line: the syncs of a commit wait for the disk
// together rather than one after another.
func inParallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// abort deletes every temp file.
func (fs *fileSet) abort() {
	for _, w := range fs.files {
		w.abort()
	}
}
