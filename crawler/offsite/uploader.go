package offsite

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/objectstore"
)

// DefaultInterval is how often a crawl takes a checkpoint when Uploader.Interval is zero.
const DefaultInterval = 5 * time.Minute

// poll is how often the uploader looks for sealed files closed since (a checkpoint wakes it too).
const poll = 5 * time.Second

// The local files of the uploader, in DATA/checkpoints.
const (
	uploadedFile  = "uploaded"        // the sealed files put in the store
	localManifest = "checkpoint.json" // in a checkpoint's directory: its time and sealed files
	tmpSuffix     = ".tmp"            // a checkpoint's directory while it is written
)

// Uploader puts a crawl node's sealed files, once closed, and its checkpoints in Store, on a
// goroutine of its own (Start), so that sealing never waits for the store.
type Uploader struct {
	Store    objectstore.Store
	DataDir  string
	Interval time.Duration // a checkpoint is taken this often (DefaultInterval when 0), and at the end of a crawl
	Log      *slog.Logger

	mu       sync.Mutex
	uploaded map[string]Object // sealed files put, by file name
	record   *os.File          // DATA/checkpoints/uploaded, appended
	wake     chan struct{}
	stop     chan struct{}
	stopped  chan struct{}
	last     time.Time // the last checkpoint's time
	prev     *Manifest // the last checkpoint this uploader put in the store
	commit   time.Time // the time of the last checkpoint whose state is in the store
	putting  string    // the SEQ of the checkpoint being put, kept by Take
}

// local is what a checkpoint's directory records besides its two snapshots.
type local struct {
	Time  time.Time `json:"time"`
	Files []string  `json:"files"`
}

// Start reads what earlier runs uploaded, drops checkpoints a kill left half written, learns
// the last checkpoint in the store (one List: the store must answer) and the last taken here, so
// that every checkpoint it takes is named after them whatever the clock, and starts uploading.
// Call Close once the crawl is done.
func (u *Uploader) Start(ctx context.Context) error {
	if u.Interval <= 0 {
		u.Interval = DefaultInterval
	}
	if u.Log == nil {
		u.Log = slog.New(slog.DiscardHandler)
	}
	dir := layout.Checkpoints(u.DataDir)
	if err := durable.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("sealed side: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("sealed side: %w", err)
	}
	last, err := LastCheckpoint(ctx, u.Store)
	if err != nil {
		return fmt.Errorf("sealed side: the last checkpoint in %s: %w", u.Store, err)
	}
	for _, e := range ents {
		switch name := e.Name(); {
		case e.IsDir() && strings.HasSuffix(name, tmpSuffix):
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("sealed side: %w", err)
			}
		case e.IsDir() && validSeq(name) && name > last:
			last = name
		}
	}
	if last != "" {
		n, _ := strconv.ParseInt(last, 10, 64) // validSeq: 20 digits of a time
		u.last = time.Unix(0, n)
	}
	if u.uploaded, err = readUploaded(filepath.Join(dir, uploadedFile)); err != nil {
		return err
	}
	if u.record, err = os.OpenFile(filepath.Join(dir, uploadedFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
		return fmt.Errorf("sealed side: %w", err)
	}
	u.wake, u.stop, u.stopped = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	go u.loop(ctx)
	return nil
}

// readUploaded reads the record of the sealed files uploaded; a line a kill cut short is ignored
// (its file is put again, which the store accepts for the same bytes).
func readUploaded(path string) (map[string]Object, error) {
	m := map[string]Object{}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sealed side: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || len(f[2]) != 64 {
			continue
		}
		size, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || !validFileName(f[0]) {
			continue
		}
		m[f[0]] = Object{Name: SealedPrefix + f[0], Size: size, SHA256: f[2]}
	}
	if cut := int64(bytes.LastIndexByte(b, '\n') + 1); cut < int64(len(b)) {
		// A line a kill cut short: its file is put again; the next line starts on a line of its own.
		if err := os.Truncate(path, cut); err != nil {
			return nil, fmt.Errorf("sealed side: %w", err)
		}
	}
	return m, nil
}

// Take writes a checkpoint: snap writes the index and the frontier, with the sealed files closed
// and nothing sealed meanwhile, and returns the sealed files' names. The checkpoint is durable in
// DATA/checkpoints when Take returns, and the uploader puts it in the store.
func (u *Uploader) Take(at time.Time, snap func(index, frontier io.Writer) ([]string, error)) error {
	u.mu.Lock()
	if !at.After(u.last) { // a clock that stands still, or behind the store's, still names each checkpoint after the one before
		at = u.last.Add(time.Nanosecond)
	}
	u.last = at
	u.mu.Unlock()
	seq := Seq(at)
	root := layout.Checkpoints(u.DataDir)
	final := filepath.Join(root, seq)
	tmp := final + tmpSuffix
	if err := durable.MkdirAll(tmp, 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	err := func() error {
		fi, err := os.OpenFile(filepath.Join(tmp, layout.IndexFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		defer fi.Close()
		ff, err := os.OpenFile(filepath.Join(tmp, layout.FrontierFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		defer ff.Close()
		files, err := snap(fi, ff)
		if err != nil {
			return err
		}
		if err := errors.Join(durable.SyncClose(fi), durable.SyncClose(ff)); err != nil {
			return err
		}
		b, err := json.Marshal(local{Time: at.UTC(), Files: files})
		if err != nil {
			return err
		}
		if err := durable.WriteFile(filepath.Join(tmp, localManifest), b, 0o600); err != nil {
			return err
		}
		return durable.Rename(tmp, final)
	}()
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("checkpoint: %w", err)
	}
	// Only the newest checkpoint is uploaded: the older ones not yet uploaded (a store out of
	// reach) would only fill the disk, a copy of index.db and frontier.db each. The one being put
	// is kept (removed under it, no upload slower than the interval would ever end).
	seqs, err := localSeqs(root)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	u.mu.Lock()
	putting := u.putting
	u.mu.Unlock()
	if err := u.forget(root, slices.DeleteFunc(seqs, func(s string) bool { return s >= seq || s == putting })); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	select {
	case u.wake <- struct{}{}:
	default:
	}
	return nil
}

// loop uploads every poll, or when a checkpoint wakes it, until Close.
func (u *Uploader) loop(ctx context.Context) {
	defer close(u.stopped)
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if err := u.pass(ctx); err != nil && ctx.Err() == nil {
			u.Log.Warn("sealed side: upload not finished; trying again", "store", u.Store.String(), "err", err)
		}
		select {
		case <-u.stop:
			return
		case <-ctx.Done():
			return
		case <-u.wake:
		case <-t.C:
		}
	}
}

// Close stops the goroutine and uploads what is left, the last checkpoint included, trying
// again until it is in the store or ctx ends. The error says what is not uploaded.
func (u *Uploader) Close(ctx context.Context) error {
	close(u.stop)
	<-u.stopped
	defer u.record.Close()
	for wait := 200 * time.Millisecond; ; wait = min(2*wait, 10*time.Second) {
		err := u.pass(ctx)
		if err == nil {
			return nil
		}
		u.Log.Warn("sealed side: upload not finished; trying again", "store", u.Store.String(), "err", err)
		select {
		case <-ctx.Done():
			return fmt.Errorf("sealed side: the last checkpoint is not in %s (it is kept in %s and uploaded by the next crawl): %w", u.Store, layout.Checkpoints(u.DataDir), err)
		case <-time.After(wait):
		}
	}
}

// pass puts the sealed files closed and not yet uploaded, then the latest checkpoint taken.
func (u *Uploader) pass(ctx context.Context) error {
	ents, err := os.ReadDir(layout.Sealed(u.DataDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range ents {
		if name := e.Name(); e.Type().IsRegular() && validFileName(name) && !u.isUploaded(name) {
			if err := u.putSealed(ctx, name); err != nil {
				return err
			}
		}
	}
	return u.putCheckpoint(ctx)
}

func (u *Uploader) isUploaded(name string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	_, ok := u.uploaded[name]
	return ok
}

// putSealed puts one closed sealed file and records it.
func (u *Uploader) putSealed(ctx context.Context, name string) error {
	o, err := u.putFile(ctx, filepath.Join(layout.Sealed(u.DataDir), name), SealedPrefix+name)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("%s %d %s\n", name, o.Size, o.SHA256)
	if _, err := u.record.WriteString(line); err != nil {
		return fmt.Errorf("sealed side: record the upload of %s: %w", name, err)
	}
	if err := u.record.Sync(); err != nil {
		return fmt.Errorf("sealed side: record the upload of %s: %w", name, err)
	}
	u.mu.Lock()
	u.uploaded[name] = o
	u.mu.Unlock()
	u.Log.Debug("sealed side: file uploaded", "file", name, "bytes", o.Size)
	return nil
}

// putFile puts the file at path under name, with its SHA-256, which the store checks.
func (u *Uploader) putFile(ctx context.Context, path, name string) (Object, error) {
	o, err := hashObject(path, name)
	if err != nil {
		return Object{}, err
	}
	return o, u.putObject(ctx, path, o)
}

// hashObject is the file at path as the object name: its size and SHA-256.
func hashObject(path, name string) (Object, error) {
	size, sum, err := hashFile(path)
	if err != nil {
		return Object{}, fmt.Errorf("read %s: %w", path, err)
	}
	return Object{Name: name, Size: size, SHA256: sum}, nil
}

// putObject puts the file at path as o (hashObject's), which the store checks against its bytes.
func (u *Uploader) putObject(ctx context.Context, path string, o Object) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return u.Store.Put(ctx, o.Name, f, o.Size, o.SHA256)
}

// putCheckpoint puts the latest checkpoint taken (its files, snapshots, then its manifest) and
// removes it and every older one from DATA/checkpoints.
func (u *Uploader) putCheckpoint(ctx context.Context) error {
	root := layout.Checkpoints(u.DataDir)
	seqs, err := localSeqs(root)
	if err != nil {
		return err
	}
	if len(seqs) == 0 {
		return nil
	}
	seq := seqs[len(seqs)-1]
	u.mu.Lock()
	u.putting = seq
	u.mu.Unlock()
	defer func() {
		u.mu.Lock()
		u.putting = ""
		u.mu.Unlock()
	}()
	dir := filepath.Join(root, seq)
	b, err := os.ReadFile(filepath.Join(dir, localManifest))
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", seq, err)
	}
	var l local
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("checkpoint %s: %w", seq, err)
	}
	m := Manifest{Format: manifestFormat, Seq: seq, Time: l.Time, Sealed: []Object{}}
	for _, name := range l.Files {
		if !u.isUploaded(name) {
			if err := u.putSealed(ctx, name); err != nil {
				return err
			}
		}
		u.mu.Lock()
		m.Sealed = append(m.Sealed, u.uploaded[name])
		u.mu.Unlock()
	}
	ipath, fpath := filepath.Join(dir, layout.IndexFile), filepath.Join(dir, layout.FrontierFile)
	if m.Index, err = hashObject(ipath, CheckpointPrefix+seq+"/"+layout.IndexFile); err != nil {
		return err
	}
	if m.Frontier, err = hashObject(fpath, CheckpointPrefix+seq+"/"+layout.FrontierFile); err != nil {
		return err
	}
	if p := u.prev; p != nil && p.Index.SHA256 == m.Index.SHA256 && p.Frontier.SHA256 == m.Frontier.SHA256 && slices.Equal(p.Sealed, m.Sealed) {
		// Nothing changed since the checkpoint in the store (an idle crawl): it stands for this one.
		u.Log.Debug("sealed side: checkpoint unchanged, not uploaded", "checkpoint", seq, "as", p.Seq)
		u.committed(l.Time)
		return u.forget(root, seqs)
	}
	if err := u.putObject(ctx, ipath, m.Index); err != nil {
		return err
	}
	if err := u.putObject(ctx, fpath, m.Frontier); err != nil {
		return err
	}
	body, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	if err := u.Store.Put(ctx, manifestName(seq), bytes.NewReader(body), int64(len(body)), hex.EncodeToString(sum[:])); err != nil {
		return err
	}
	u.Log.Info("sealed side: checkpoint uploaded", "store", u.Store.String(), "checkpoint", seq, "files", len(m.Sealed))
	u.prev = &m
	u.committed(l.Time)
	return u.forget(root, seqs)
}

// committed records that the state of the checkpoint taken at t is in the store.
func (u *Uploader) committed(t time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.commit = t
}

// Committed is the time of the last checkpoint whose state is in the store (zero before the
// first): whatever the crawl recorded before it is safe from the loss of the node's disk.
func (u *Uploader) Committed() time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.commit
}

// localSeqs are the checkpoints taken in root (DATA/checkpoints) and not yet uploaded, in order.
func localSeqs(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var seqs []string
	for _, e := range ents {
		if e.IsDir() && validSeq(e.Name()) {
			seqs = append(seqs, e.Name())
		}
	}
	slices.Sort(seqs)
	return seqs, nil
}

// forget removes the checkpoints seqs from DATA/checkpoints, once they are in the store or a
// later one is taken.
func (u *Uploader) forget(root string, seqs []string) error {
	for _, s := range seqs {
		if err := os.RemoveAll(filepath.Join(root, s)); err != nil {
			return err
		}
	}
	return durable.SyncDir(root)
}
