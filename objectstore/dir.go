package objectstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/archivectl/archivectl/internal/durable"
)

// Dir is a Store in a directory: one file per object, named by its path. Put writes a temp
// file under .tmp/, syncs it and links it to its name, which fails if the name is taken: the
// object appears whole or not at all, and never replaces another.
type Dir struct {
	root string
}

// tmpDir holds Put's files until they are linked to their names; List never shows it.
const tmpDir = ".tmp"

// NewDir returns the Store in directory root, which must exist.
func NewDir(root string) *Dir { return &Dir{root: root} }

// String is the directory as a file URL.
func (d *Dir) String() string { return "file://" + d.root }

func (d *Dir) path(name string) (string, error) {
	if err := validName(name); err != nil {
		return "", err
	}
	if name == tmpDir || strings.HasPrefix(name, tmpDir+"/") {
		return "", fmt.Errorf("%q is not an object name", name)
	}
	return filepath.Join(d.root, filepath.FromSlash(name)), nil
}

// Check tells whether the directory exists and is one.
func (d *Dir) Check(ctx context.Context) error {
	fi, err := os.Stat(d.root)
	if err != nil {
		return fmt.Errorf("%s: %w", d, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", d)
	}
	return nil
}

// Put stores body under name unless name holds other bytes.
func (d *Dir) Put(ctx context.Context, name string, body io.ReadSeeker, size int64, sum string) error {
	dst, err := d.path(name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(d.root, tmpDir), 0o755); err != nil {
		return fmt.Errorf("%s: %w", d, err)
	}
	f, err := durable.CreateTemp(filepath.Join(d.root, tmpDir), "put-*", 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", d, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return fmt.Errorf("put %s: %w", name, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(body, size+1))
	if err == nil && n != size {
		err = fmt.Errorf("the body has %d bytes, not %d", n, size)
	}
	if err == nil && hex.EncodeToString(h.Sum(nil)) != sum {
		err = fmt.Errorf("the body's SHA-256 is not %s", sum)
	}
	if err == nil {
		err = durable.SyncClose(f)
	} else {
		f.Close()
	}
	if err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	err = os.ErrNotExist
	for try := 0; try < 3 && errors.Is(err, fs.ErrNotExist); try++ { // a Delete may remove an emptied parent meanwhile
		if err = os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
			err = os.Link(tmp, dst)
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.EEXIST) {
			return d.same(name, dst, size, sum)
		}
		return fmt.Errorf("put %s: %w", name, err)
	}
	if err := durable.SyncDir(filepath.Dir(dst)); err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	return nil
}

// same accepts an existing object with the given size and SHA-256, and refuses any other.
func (d *Dir) same(name, p string, size int64, sum string) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	defer f.Close()
	n, got, err := Sum(f)
	if err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	if n != size || got != sum {
		return fmt.Errorf("put %s: %w", name, ErrExists)
	}
	return nil
}

// Read returns n bytes of name from off (n < 0: to the end).
func (d *Dir) Read(ctx context.Context, name string, off, n int64) (io.ReadCloser, error) {
	p, err := d.path(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if n < 0 {
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		n = max(fi.Size()-off, 0)
	}
	return readCloser{io.NewSectionReader(f, off, n), f}, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// Stat returns name's object.
func (d *Dir) Stat(ctx context.Context, name string) (Object, error) {
	p, err := d.path(name)
	if err != nil {
		return Object{}, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return Object{}, fmt.Errorf("stat %s: %w", name, err)
	}
	if fi.IsDir() {
		return Object{}, fmt.Errorf("stat %s: %w", name, fs.ErrNotExist)
	}
	return Object{Name: name, Size: fi.Size()}, nil
}

// List returns the objects under prefix, in name order.
func (d *Dir) List(ctx context.Context, prefix string) ([]Object, error) {
	var out []Object
	err := filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == d.root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		rel, _ := filepath.Rel(d.root, p)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if rel == tmpDir || rel != "." && !strings.HasPrefix(rel+"/", prefix) && !strings.HasPrefix(prefix, rel+"/") {
				return fs.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || !strings.HasPrefix(rel, prefix) {
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		out = append(out, Object{Name: rel, Size: fi.Size()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", d, err)
	}
	slices.SortFunc(out, func(a, b Object) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Delete removes name and the directories it leaves empty.
func (d *Dir) Delete(ctx context.Context, name string) error {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	for dir := filepath.Dir(p); dir != d.root && strings.HasPrefix(dir, d.root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
	return nil
}
