package mirror

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/publish"
)

// FS is the view as the lookup service reads it: the view directory, and each
// shards/NODE/NAME (or tombstones/NODE/NAME) of a node's generation read from the store.
func (m *Mirror) FS() fs.FS { return viewFS{m: m, dir: os.DirFS(m.dir)} }

type viewFS struct {
	m   *Mirror
	dir fs.FS
}

// Open opens name in the view.
func (v viewFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	parts := strings.Split(name, "/")
	if len(parts) != 3 || parts[0] != layout.ShardsDir && parts[0] != layout.TombstonesDir {
		return v.dir.Open(name)
	}
	cur, ok := v.m.view.Load(parts[1])
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	f, ok := cur.(*publish.Manifest).File(parts[0] + "/" + parts[2])
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &remoteFile{s: v.m.s, object: publish.NodePrefix(parts[1]) + f.Object, base: parts[2], size: f.Size}, nil
}

// Windows of a remote file's ranged reads: a read at a new offset asks for minWindow bytes (or
// what it needs); each read that goes on where the last ended asks for twice the last, up to
// maxWindow. A record of n bytes costs about log2(n/minWindow) requests and at most n extra,
// unless the reader says beforehand which bytes it will read (WillRead): then they are one GET
// (up to maxWindow; the windows of a larger record go on doubling from there).
// A GET closed with at most maxDrain bytes left unread is read to its end first, so that its
// connection goes back to the SDK's pool instead of being closed.
const (
	minWindow = 64 << 10
	maxWindow = 8 << 20
	maxDrain  = 64 << 10
	getLimit  = 2 * time.Minute // one ranged GET, body included
)

// remoteFile is one object of the store opened for random access.
type remoteFile struct {
	s      objectstore.Store
	object string
	base   string
	size   int64

	mu     sync.Mutex
	body   io.ReadCloser // the open ranged GET, or nil
	cancel context.CancelFunc
	pos    int64                  // where body is
	end    int64                  // where body's range ends
	window int64                  // the last window asked
	off    int64                  // Read's offset
	plan   struct{ off, n int64 } // WillRead's range, until a read starts there
}

// WillRead says that the next reads take the n bytes at off, in order (a record's gzip member,
// whose offset and length the CDXJ gives): the first of them asks for all n in one ranged GET
// (at most maxWindow).
func (f *remoteFile) WillRead(off, n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plan.off, f.plan.n = off, n
}

// ReadAt reads len(p) bytes at off through ranged GETs.
func (f *remoteFile) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for n < len(p) {
		if off >= f.size {
			return n, io.EOF
		}
		if f.body == nil || f.pos != off || f.pos >= f.end {
			if err := f.open(off, int64(len(p)-n)); err != nil {
				return n, err
			}
		}
		want := min(int64(len(p)-n), f.end-f.pos)
		k, err := io.ReadFull(f.body, p[n:n+int(want)])
		n += k
		off += int64(k)
		f.pos += int64(k)
		if err != nil {
			f.closeBody()
			return n, fmt.Errorf("%s: read %s at %d: %w", f.s, f.object, off, err)
		}
	}
	return n, nil
}

// open starts a ranged GET at off for at least need bytes.
func (f *remoteFile) open(off, need int64) error {
	sequential := f.body != nil && f.pos == off
	f.closeBody()
	if sequential {
		f.window = min(2*f.window, maxWindow)
	} else {
		f.window = minWindow
	}
	end := min(off+max(f.window, need), f.size)
	if f.plan.n > 0 && f.plan.off == off { // at most maxWindow, each GET within its getLimit
		end = min(off+max(min(f.plan.n, maxWindow), need), f.size)
		f.window = max(f.window, end-off)
	}
	f.plan.n = 0
	ctx, cancel := context.WithTimeout(context.Background(), getLimit)
	body, err := f.s.Read(ctx, f.object, off, end-off)
	if err != nil {
		cancel()
		return err
	}
	f.body, f.cancel, f.pos, f.end = body, cancel, off, end
	return nil
}

func (f *remoteFile) closeBody() {
	if f.body != nil {
		if left := f.end - f.pos; left > 0 && left <= maxDrain {
			io.CopyN(io.Discard, f.body, left) // a body read to its end frees its connection for reuse
		}
		f.body.Close()
		f.cancel()
		f.body, f.cancel = nil, nil
	}
}

// Read reads from the file's own offset.
func (f *remoteFile) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	return n, err
}

// Stat describes the object as a read-only file.
func (f *remoteFile) Stat() (fs.FileInfo, error) { return remoteInfo{f.base, f.size}, nil }

// Close ends any open GET.
func (f *remoteFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closeBody()
	return nil
}

type remoteInfo struct {
	name string
	size int64
}

func (i remoteInfo) Name() string       { return path.Base(i.name) }
func (i remoteInfo) Size() int64        { return i.size }
func (i remoteInfo) Mode() fs.FileMode  { return 0o444 }
func (i remoteInfo) ModTime() time.Time { return time.Time{} }
func (i remoteInfo) IsDir() bool        { return false }
func (i remoteInfo) Sys() any           { return nil }
