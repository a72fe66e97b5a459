package release

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/layout"
	"github.com/archivectl/archivectl/store/lockfile"
)

// Options tune a Releaser; zero values take the defaults.
type Options struct {
	ShardSize   int64         // public shard rotation size in bytes (default 1 GiB)
	LockTimeout time.Duration // how long a pass waits for index.db or another pass before giving up (default lockfile.DefaultTimeout, 5 s)
	Logger      *slog.Logger  // default slog.Default()
	Software    string        // written into every warcinfo record (default "archivectl")
}

// Releaser runs release passes over one data directory.
type Releaser struct {
	dir string
	opt Options
	met *metrics
}

// Summary is what one pass did.
type Summary struct {
	Released   int           // captures byte-copied into public shards
	Tombstoned int           // tombstones published
	Deferred   int           // due revisits held back because their original is not public yet
	Next       time.Time     // the next release time after now; zero when nothing waits
	Duration   time.Duration // wall time of the pass
}

// maxBatch is how many captures one commit holds at most; a pass makes as many commits as it
// needs. A variable only so that tests can make passes of several commits.
var maxBatch = 10000

// New returns a Releaser for the data directory (sealed/, index.db, public/).
func New(dataDir string, opt Options) *Releaser {
	if opt.ShardSize <= 0 {
		opt.ShardSize = 1 << 30
	}
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = lockfile.DefaultTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Software == "" {
		opt.Software = "archivectl"
	}
	return &Releaser{dir: dataDir, opt: opt, met: newMetrics()}
}

// Pass releases every capture due at now and publishes a tombstone for every capture not yet
// due that has none. It is idempotent: a second pass at the same now changes no byte under
// public/. A pass interrupted anywhere is completed or rolled back by the next one. A busy
// index.db (or another pass) gives an error wrapping lockfile.ErrBusy after LockTimeout. Pass logs
// a successful pass at Info; errors are the caller's to report.
func (r *Releaser) Pass(ctx context.Context, now time.Time) (Summary, error) {
	start := time.Now()
	s, backlog, err := r.pass(ctx, now.UTC())
	s.Duration = time.Since(start)
	r.met.observe(now, s, backlog, err)
	if err == nil {
		r.opt.Logger.Info("release pass", "now", now.UTC(), "released", s.Released, "tombstoned", s.Tombstoned,
			"deferred", s.Deferred, "next", s.Next, "duration", s.Duration)
	}
	return s, err
}

// pass is the state of one running pass.
type pass struct {
	r       *Releaser
	ix      *store.Index
	now     time.Time
	state   State // state.json as of the last commit
	next    *time.Time
	logSize int64
	serial  map[string]int // next serial per file prefix
	sealed  *sealedFiles
}

func (r *Releaser) pass(ctx context.Context, now time.Time) (s Summary, backlog int, err error) {
	lock, err := lockfile.Acquire(layout.ReleaseLock(r.dir), r.opt.LockTimeout)
	if err != nil {
		return s, -1, fmt.Errorf("release: %w", err)
	}
	defer lock.Release()
	ix, err := store.OpenIndex(layout.Index(r.dir), r.opt.LockTimeout)
	if err != nil {
		return s, -1, fmt.Errorf("release: %w", err)
	}
	if err := r.recover(ix); err != nil {
		return s, -1, err
	}
	if err := prepareDirs(r.dir); err != nil {
		return s, -1, err
	}
	p := &pass{r: r, ix: ix, now: now, serial: map[string]int{}, sealed: &sealedFiles{dir: layout.Sealed(r.dir)}}
	defer p.sealed.close()
	if p.state, err = ReadState(r.dir); err != nil {
		return s, -1, err
	}
	if st, err := os.Stat(layout.ReleaseLog(r.dir)); err == nil {
		p.logSize = st.Size()
	}
	next, ok, err := ix.Next(now)
	if err != nil {
		return s, -1, fmt.Errorf("release: %w", err)
	}
	if ok {
		next = next.UTC()
		s.Next, p.next = next, &next
	}
	if p.serial[shardPrefix], err = nextSerial(layout.Shards(r.dir), shardPrefix); err != nil {
		return s, -1, err
	}
	if p.serial[tombPrefix], err = nextSerial(layout.Tombstones(r.dir), tombPrefix); err != nil {
		return s, -1, err
	}

	// A revisit is due no earlier than its original, so it is held back only when its original
	// comes in a later batch of this pass (or is missing): a second round releases it then.
	var deferred map[string]bool
	for round := 0; round < 2; round++ {
		deferred = map[string]bool{}
		released := 0
		for {
			batch, err := collect(ix.Due, now, deferred)
			if err != nil {
				return s, -1, fmt.Errorf("release: %w", err)
			}
			if len(batch) == 0 {
				break
			}
			if batch, err = p.order(batch, deferred); err != nil {
				return s, -1, err
			}
			if len(batch) == 0 {
				continue // all held back; the next scan skips them
			}
			if err := p.release(ctx, batch); err != nil {
				return s, -1, err
			}
			released += len(batch)
		}
		s.Released += released
		if len(deferred) == 0 || released == 0 {
			break
		}
	}
	s.Deferred = len(deferred)
	for {
		batch, err := collect(ix.Embargoed, now, nil)
		if err != nil {
			return s, -1, fmt.Errorf("release: %w", err)
		}
		if len(batch) == 0 {
			break
		}
		if err := p.tombstone(ctx, batch); err != nil {
			return s, -1, err
		}
		s.Tombstoned += len(batch)
	}
	os.Remove(layout.ReleaseTmp(r.dir)) // empty after every commit; a failed pass leaves it for the next to clean
	c, err := ix.Counts(now)
	if err != nil {
		return s, -1, fmt.Errorf("release: %w", err)
	}
	return s, c.Backlog, nil
}

// recover finishes a commit that an interrupted pass left, then deletes unjournaled temp files.
func (r *Releaser) recover(ix *store.Index) error {
	j, err := readJournal(r.dir)
	if err != nil {
		return err
	}
	if j != nil {
		r.opt.Logger.Warn("finishing an interrupted release commit", "pass", j.Pass, "files", len(j.Files), "marks", len(j.Marks))
		if err := apply(r.dir, ix, j); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(layout.ReleaseTmp(r.dir)); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	return nil
}

// prepareDirs creates public/ (world-readable) and an empty release-tmp/.
func prepareDirs(dataDir string) error {
	for _, d := range []string{layout.Public(dataDir), layout.Shards(dataDir), layout.Tombstones(dataDir)} {
		if err := os.MkdirAll(d, publicDirMode); err != nil {
			return fmt.Errorf("release: %w", err)
		}
		if err := os.Chmod(d, publicDirMode); err != nil {
			return fmt.Errorf("release: %w", err)
		}
	}
	if err := os.MkdirAll(layout.ReleaseTmp(dataDir), 0o700); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	return nil
}

// errBatchFull stops a scan once a batch is full.
var errBatchFull = errors.New("batch full")

// collect reads up to maxBatch entries from an index scan, skipping ids in skip.
func collect(scan func(time.Time, func(store.Entry) error) error, now time.Time, skip map[string]bool) ([]store.Entry, error) {
	var out []store.Entry
	err := scan(now, func(e store.Entry) error {
		if skip[e.ID] {
			return nil
		}
		out = append(out, e)
		if len(out) == maxBatch {
			return errBatchFull
		}
		return nil
	})
	if errors.Is(err, errBatchFull) {
		err = nil
	}
	return out, err
}

// order sorts a batch in sealed order and holds back (in deferred) every revisit whose
// original is neither public already nor in this batch: a revisit is released only together
// with or after its original.
func (p *pass) order(batch []store.Entry, deferred map[string]bool) ([]store.Entry, error) {
	out := make([]store.Entry, 0, len(batch))
	ok := map[string]bool{}
	for _, e := range batch {
		if !e.Revisit {
			out = append(out, e)
			ok[e.ID] = true
		}
	}
	for _, e := range batch {
		if !e.Revisit {
			continue
		}
		if !ok[e.RefersTo] {
			orig, found, err := p.ix.Get(e.RefersTo)
			if err != nil {
				return nil, fmt.Errorf("release: %w", err)
			}
			if !found || orig.State != store.Released {
				deferred[e.ID] = true
				p.r.opt.Logger.Warn("revisit held back until its original is released", "id", e.ID, "refers_to", e.RefersTo, "original_known", found)
				continue
			}
		}
		out = append(out, e)
		ok[e.ID] = true
	}
	// One commit publishes the whole batch, so order inside it is free: take the sealed order,
	// which reads the sealed files sequentially and lets adjacent members be copied as one range.
	sort.SliceStable(out, func(i, j int) bool {
		a, b := firstMember(out[i]), firstMember(out[j])
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Offset < b.Offset
	})
	return out, nil
}

// firstMember is the location of a capture's first sealed record (normally its request).
func firstMember(e store.Entry) store.Location {
	first := e.Response
	for _, l := range []store.Location{e.Request, e.Metadata} {
		if l.Length > 0 && l.File == first.File && l.Offset < first.Offset {
			first = l
		}
	}
	return first
}

// File name prefixes of the public files.
const (
	shardPrefix = "PUBLIC"
	tombPrefix  = "TOMBSTONES"
)

// nextSerial is one more than the largest serial of the files named PREFIX-<ts>-<serial>.warc.gz in dir.
func nextSerial(dir, prefix string) (int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("release: %w", err)
	}
	max := 0
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".warc.gz")
		if !ok || !strings.HasPrefix(name, prefix+"-") {
			continue
		}
		if n, err := strconv.Atoi(name[strings.LastIndexByte(name, '-')+1:]); err == nil && n > max {
			max = n
		}
	}
	return max + 1, nil
}

// newFile starts a public WARC file under release-tmp/ with its warcinfo record.
func (p *pass) newFile(prefix, subdir, description string) (*warcFile, error) {
	name := fmt.Sprintf("%s-%s-%05d.warc.gz", prefix, p.now.Format(timestamp14), p.serial[prefix])
	p.serial[prefix]++
	w, err := createWARCFile(layout.ReleaseTmp(p.r.dir), subdir+"/"+name)
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

// finish makes every file durable and returns the renames of the commit.
func (fs *fileSet) finish(dataDir string) ([]journalFile, error) {
	var out []journalFile
	for _, w := range fs.files {
		jf, err := w.finish()
		if err != nil {
			return nil, err
		}
		for _, f := range jf {
			rel, err := filepath.Rel(dataDir, f.Tmp)
			if err != nil {
				return nil, fmt.Errorf("release: %w", err)
			}
			out = append(out, journalFile{Tmp: filepath.ToSlash(rel), Public: f.Public})
		}
		crashPoint("file")
	}
	return out, nil
}

// abort deletes every temp file.
func (fs *fileSet) abort() {
	for _, w := range fs.files {
		w.abort()
	}
}

// release copies the members of each capture of batch into new shards and commits them.
func (p *pass) release(ctx context.Context, batch []store.Entry) (err error) {
	var fs fileSet
	defer func() {
		if err != nil {
			fs.abort()
		}
	}()
	var marks []store.Mark
	var log bytes.Buffer
	for _, e := range batch {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("release: pass cancelled: %w", err)
		}
		size := e.Request.Length + e.Response.Length + e.Metadata.Length
		if err := fs.rotate(p, size, p.r.opt.ShardSize, shardPrefix, layout.ShardsDir, "archivectl public release shard: sealed records whose embargo has ended, byte for byte"); err != nil {
			return err
		}
		w := fs.cur
		var locs [3]store.Location
		for i, loc := range []store.Location{e.Request, e.Response, e.Metadata} {
			if loc.Length == 0 {
				continue
			}
			src, err := p.sealed.open(loc)
			if err != nil {
				return fmt.Errorf("release: capture %s: %w", e.ID, err)
			}
			off, err := w.copyRange(src, loc.Offset, loc.Length)
			if err != nil {
				return fmt.Errorf("release: capture %s: %w", e.ID, err)
			}
			crashPoint("member")
			locs[i] = store.Location{File: w.rel, Offset: off, Length: loc.Length}
		}
		crashPoint("copy")
		resp := locs[1]
		line, err := cdxjLine(e, StateReleased, resp)
		if err != nil {
			return err
		}
		w.lines = append(w.lines, line)
		marks = append(marks, store.Mark{ID: e.ID, State: store.Released, Public: resp, ReleaseAt: e.ReleaseAt})
		le := LogEntry{Pass: p.now, Event: EventReleased, ID: e.ID, URL: e.URL, Digest: e.PayloadDigest,
			ReleaseAt: e.ReleaseAt.UTC(), File: resp.File, Offset: resp.Offset, Length: resp.Length}
		if locs[0].Length > 0 {
			le.Request = &locs[0]
		}
		if locs[2].Length > 0 {
			le.Metadata = &locs[2]
		}
		if err := writeLogLine(&log, le); err != nil {
			return err
		}
	}
	return p.commit(&fs, marks, log.Bytes(), len(batch), 0)
}

// tombstone publishes one tombstone per capture of batch and commits them.
func (p *pass) tombstone(ctx context.Context, batch []store.Entry) (err error) {
	var fs fileSet
	defer func() {
		if err != nil {
			fs.abort()
		}
	}()
	var marks []store.Mark
	var log bytes.Buffer
	for _, e := range batch {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("release: pass cancelled: %w", err)
		}
		rec, err := tombstoneRecord(e, p.now)
		if err != nil {
			return err
		}
		if err := fs.rotate(p, 4096, p.r.opt.ShardSize, tombPrefix, layout.TombstonesDir, "archivectl tombstones: facts of captures still under embargo, without their bodies"); err != nil {
			return err
		}
		w := fs.cur
		off, n, err := w.writeRecord(rec)
		if err != nil {
			return err
		}
		crashPoint("tombstone")
		loc := store.Location{File: w.rel, Offset: off, Length: n}
		line, err := cdxjLine(e, StateEmbargoed, loc)
		if err != nil {
			return err
		}
		w.lines = append(w.lines, line)
		marks = append(marks, store.Mark{ID: e.ID, State: store.Tombstoned, Public: loc, ReleaseAt: e.ReleaseAt})
		if err := writeLogLine(&log, LogEntry{Pass: p.now, Event: EventTombstoned, ID: e.ID, URL: e.URL,
			Digest: e.PayloadDigest, ReleaseAt: e.ReleaseAt.UTC(), File: loc.File, Offset: loc.Offset, Length: loc.Length}); err != nil {
			return err
		}
	}
	return p.commit(&fs, marks, log.Bytes(), 0, len(batch))
}

// commit makes the files durable, then journals and applies the commit.
func (p *pass) commit(fs *fileSet, marks []store.Mark, log []byte, released, tombstoned int) error {
	files, err := fs.finish(p.r.dir)
	if err != nil {
		return err
	}
	st := p.state
	st.Generation++
	st.LastPass = p.now
	st.NextRelease = p.next
	st.Released += int64(released)
	st.Tombstoned += int64(tombstoned)
	st.Software = p.r.opt.Software
	j := &journal{Pass: p.now, Files: files, Marks: marks, LogSize: p.logSize, Log: string(log), State: st}
	if err := commit(p.r.dir, p.ix, j); err != nil {
		return err
	}
	p.state = st
	p.logSize += int64(len(log))
	return nil
}

// cdxjLine is the public CDXJ line of a capture in state, at loc.
func cdxjLine(e store.Entry, state string, loc store.Location) ([]byte, error) {
	surt := e.SURT
	if surt == "" {
		var err error
		if surt, err = store.SURT(e.URL); err != nil {
			return nil, fmt.Errorf("release: capture %s: %w", e.ID, err)
		}
	}
	return FormatLine(surt, e.Time, CDXJ{
		URL: e.URL, Mime: e.Mime, Status: e.Status, Digest: e.PayloadDigest,
		Length: loc.Length, Offset: loc.Offset, Filename: loc.File, Usage: e.Usage,
		ReleaseAt: e.ReleaseAt.UTC().Format(time.RFC3339Nano), ID: e.ID, State: state,
		Time: e.Time.UTC().Format(time.RFC3339Nano), Headers: e.Headers, Revisit: e.Revisit, RefersTo: e.RefersTo,
	})
}

// writeLogLine appends one JSON line to buf.
func writeLogLine(buf *bytes.Buffer, e LogEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("release: log: %w", err)
	}
	buf.Write(b)
	buf.WriteByte('\n')
	return nil
}
