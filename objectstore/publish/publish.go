package publish

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/objectstore"
)

// IDFile is the file in the data directory holding its publishing id.
const IDFile = "publish-id"

// Options tune Publish; Node is required.
type Options struct {
	Node        string           // the node's name (ValidNode)
	LockTimeout time.Duration    // how long to wait for a release pass to end (default lockfile.DefaultTimeout)
	Logger      *slog.Logger     // default slog.Default()
	Now         func() time.Time // for the manifest's published time (default time.Now)
}

// Result is what one Publish did.
type Result struct {
	Generation int64 // the node's latest generation in the store after the call (0: none)
	Committed  bool  // this call committed it
	Uploaded   int   // objects uploaded (manifest included)
	Bytes      int64 // bytes uploaded
	Deleted    int   // objects no kept manifest lists, deleted
}

// Publish makes the data directory's public/, as its last release commit left it, the node's
// latest generation in s: it uploads what the store lacks, then commits the manifest. It holds
// release.lock meanwhile, so no pass changes public/ under it. Run after every release pass;
// with nothing new it only cleans. An error leaves the previous generation the latest.
func Publish(ctx context.Context, dataDir string, s objectstore.Store, opt Options) (Result, error) {
	var res Result
	if err := ValidNode(opt.Node); err != nil {
		return res, fmt.Errorf("publish: %w", err)
	}
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = lockfile.DefaultTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	lock, err := lockfile.Acquire(layout.ReleaseLock(dataDir), opt.LockTimeout)
	if err != nil {
		return res, fmt.Errorf("publish: %w", err)
	}
	defer lock.Release()
	if _, err := os.Stat(layout.ReleaseJournal(dataDir)); err == nil {
		return res, fmt.Errorf("publish: a release commit is pending in %s: the next release pass finishes it, then publishes", layout.ReleaseJournal(dataDir))
	}
	status, err := os.ReadFile(layout.State(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil // nothing released or tombstoned yet
	}
	if err != nil {
		return res, fmt.Errorf("publish: %w", err)
	}
	var st struct {
		Generation int64 `json:"generation"`
	}
	if err := json.Unmarshal(status, &st); err != nil {
		return res, fmt.Errorf("publish: %s: %w", layout.State(dataDir), err)
	}
	id, err := dataID(dataDir)
	if err != nil {
		return res, fmt.Errorf("publish: %w", err)
	}
	p := &publisher{s: s, node: opt.Node, prefix: NodePrefix(opt.Node), pub: layout.Public(dataDir), res: &res}
	gens, err := Committed(ctx, s)
	if err != nil {
		return res, fmt.Errorf("publish: %w", err)
	}
	mine := gens[opt.Node]
	if len(mine) > 0 {
		if p.prev, err = ReadManifest(ctx, s, opt.Node, mine[len(mine)-1]); err != nil {
			return res, fmt.Errorf("publish: %w", err)
		}
		switch {
		case p.prev.DataID != id:
			return res, fmt.Errorf("publish: node %q in %s is published by another data directory (id %s, this one %s): give this node its own name (node: in the config)", opt.Node, s, p.prev.DataID, id)
		case p.prev.Generation > st.Generation:
			return res, fmt.Errorf("publish: %s holds generation %d of node %q, this data directory only %d: was it restored from a backup? Publish it under a new node name", s, p.prev.Generation, opt.Node, st.Generation)
		}
		res.Generation = p.prev.Generation
	}
	if p.prev == nil || p.prev.Generation < st.Generation {
		m, err := p.upload(ctx, id, st.Generation, status, opt.Now())
		if err != nil {
			return res, fmt.Errorf("publish: %w", err)
		}
		if err := p.put(ctx, ManifestName(opt.Node, m.Generation), m.marshal()); err != nil {
			return res, fmt.Errorf("publish: commit generation %d: %w", m.Generation, err)
		}
		res.Generation, res.Committed = m.Generation, true
		mine = append(mine, m.Generation)
		opt.Logger.Info("public generation published", "store", s.String(), "node", opt.Node, "generation", m.Generation,
			"objects", res.Uploaded, "bytes", res.Bytes)
	}
	if err := p.clean(ctx, mine); err != nil {
		// The generation is committed; what is left is found again by the next Publish.
		opt.Logger.Warn("publish: garbage not cleaned; the next publish tries again", "store", s.String(), "node", opt.Node, "err", err)
	}
	return res, nil
}

// publisher is one Publish of a node.
type publisher struct {
	s      objectstore.Store
	node   string
	prefix string    // nodes/NODE/
	pub    string    // the local public/
	prev   *Manifest // the node's latest committed generation; nil for none
	res    *Result
}

// upload stores every file of public/ that the store lacks and returns the manifest of
// generation g listing them.
func (p *publisher) upload(ctx context.Context, id string, g int64, status []byte, now time.Time) (*Manifest, error) {
	m := &Manifest{Format: Format, Node: p.node, DataID: id, Generation: g, Published: now.UTC(), Status: string(status)}
	err := filepath.WalkDir(p.pub, func(full string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(p.pub, full)
		rel = filepath.ToSlash(rel)
		name := e.Name()
		if rel != "." && (strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".tmp") || strings.HasSuffix(name, ".open")) {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() || !e.Type().IsRegular() || rel == layout.StateFile || rel == layout.ReleaseLogFile {
			return nil
		}
		f, err := p.file(ctx, g, rel, full)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(m.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	if m.Log, err = p.log(ctx, g); err != nil {
		return nil, err
	}
	return m, nil
}

// immutable tells whether a public file is never rewritten once in place: the WARC and CDXJ
// files and the index's segments. Others (the index manifest) are copied per generation.
func immutable(rel string) bool {
	return strings.HasPrefix(rel, layout.ShardsDir+"/") || strings.HasPrefix(rel, layout.TombstonesDir+"/") ||
		strings.HasPrefix(rel, "index/") && rel != "index/manifest.json"
}

// file uploads one file of public/ unless the previous generation has it, and returns its entry.
func (p *publisher) file(ctx context.Context, g int64, rel, full string) (File, error) {
	fi, err := os.Stat(full)
	if err != nil {
		return File{}, err
	}
	old, had := File{}, false
	if p.prev != nil {
		old, had = p.prev.File(rel)
	}
	if had && immutable(rel) {
		if old.Size != fi.Size() {
			return File{}, fmt.Errorf("public/%s is %d bytes, %d when generation %d was published: public files are never rewritten; run archivectl verify", rel, fi.Size(), old.Size, p.prev.Generation)
		}
		return old, nil
	}
	f, err := os.Open(full)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	sum, err := hashOf(f)
	if err != nil {
		return File{}, fmt.Errorf("read public/%s: %w", rel, err)
	}
	if had && old.SHA256 == sum && old.Size == fi.Size() {
		return old, nil
	}
	obj := rel
	if !immutable(rel) {
		obj = generationCopy(g, rel)
	}
	if err := p.putReader(ctx, obj, f, fi.Size(), sum); err != nil {
		return File{}, err
	}
	return File{Path: rel, Object: obj, Size: fi.Size(), SHA256: sum}, nil
}

// log uploads what release-log.jsonl gained since the previous generation, as one more part,
// and returns the log's parts.
func (p *publisher) log(ctx context.Context, g int64) ([]File, error) {
	var parts []File
	var from int64
	if p.prev != nil {
		parts, from = slices.Clone(p.prev.Log), p.prev.LogSize()
	}
	f, err := os.Open(filepath.Join(p.pub, layout.ReleaseLogFile))
	if errors.Is(err, fs.ErrNotExist) && from == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	switch {
	case size < from:
		return nil, fmt.Errorf("public/%s is %d bytes, %d when generation %d was published: the log is append-only; run archivectl verify", layout.ReleaseLogFile, size, from, p.prev.Generation)
	case size == from:
		return parts, nil
	}
	part := io.NewSectionReader(f, from, size-from)
	sum, err := hashOf(part)
	if err != nil {
		return nil, err
	}
	obj := logPart(g, from)
	if err := p.putReader(ctx, obj, part, size-from, sum); err != nil {
		return nil, err
	}
	return append(parts, File{Path: layout.ReleaseLogFile, Object: obj, Size: size - from, SHA256: sum}), nil
}

// put uploads b as the node's object obj.
func (p *publisher) put(ctx context.Context, name string, b []byte) error {
	h := sha256.Sum256(b)
	if err := p.s.Put(ctx, name, strings.NewReader(string(b)), int64(len(b)), hex.EncodeToString(h[:])); err != nil {
		return err
	}
	p.res.Uploaded++
	p.res.Bytes += int64(len(b))
	return nil
}

// putReader uploads size bytes of r as the node's object obj.
func (p *publisher) putReader(ctx context.Context, obj string, r io.ReadSeeker, size int64, sum string) error {
	if err := p.s.Put(ctx, p.prefix+obj, r, size, sum); err != nil {
		return err
	}
	p.res.Uploaded++
	p.res.Bytes += size
	return nil
}

// marshal renders the manifest as it is stored.
func (m *Manifest) marshal() []byte {
	b, _ := json.Marshal(m) // nothing in a Manifest can fail to marshal
	return append(b, '\n')
}

// hashOf is the hex SHA-256 of what r holds from its start; r is left anywhere.
func hashOf(r io.ReadSeeker) (string, error) {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	_, sum, err := objectstore.Sum(r)
	return sum, err
}

// dataID returns the data directory's publishing id, making one the first time.
func dataID(dataDir string) (string, error) {
	path := filepath.Join(dataDir, IDFile)
	b, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(b))
		if len(id) != 32 {
			return "", fmt.Errorf("%s holds %q, not a publishing id: restore it, or remove it to publish as a new data directory", path, id)
		}
		return id, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var raw [16]byte
	rand.Read(raw[:])
	id := hex.EncodeToString(raw[:])
	if err := durable.ReplaceFile(path, []byte(id+"\n"), 0o644); err != nil {
		return "", err
	}
	return id, nil
}
