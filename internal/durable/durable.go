// Package durable writes files so that a crash leaves either the old or the new state on disk:
// file contents are fsynced before they are relied on, and every creation, rename or removal is
// made durable by fsyncing its directory. It uses only the standard library.
package durable

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// SyncDir makes a directory's entries (creations, renames, removals) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// Rename renames from to to and makes the rename durable (fsync of to's directory).
func Rename(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(to))
}

// SyncClose fsyncs and closes f.
func SyncClose(f *os.File) error {
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// OpenFile opens path with flag (os.O_CREATE among them) and gives it mode whatever the umask:
// every file a reader of another user must read is made so, once, here.
func OpenFile(path string, flag int, mode fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag, mode)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// MkdirAll makes dir and any missing parents, and gives dir mode whatever the umask (the
// parents it makes get mode as the umask leaves it): the one place a directory's mode is set.
func MkdirAll(dir string, mode fs.FileMode) error {
	if err := os.MkdirAll(dir, mode); err != nil {
		return err
	}
	return os.Chmod(dir, mode)
}

// Create creates or truncates path for reading and writing with mode, whatever the umask.
func Create(path string, mode fs.FileMode) (*os.File, error) {
	return OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, mode)
}

// CreateTemp is os.CreateTemp with mode, whatever the umask. A missing dir is told as such,
// never by the temporary file's name.
func CreateTemp(dir, pattern string, mode fs.FileMode) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("directory %s: %w", dir, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// WriteFile writes b to path with mode (whatever the umask) and fsyncs it.
func WriteFile(path string, b []byte, mode fs.FileMode) error {
	f, err := OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := SyncClose(f); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

// ReplaceFile atomically replaces path with b (mode as in WriteFile): PATH.tmp is written and
// fsynced, then renamed over path, then the directory is fsynced.
func ReplaceFile(path string, b []byte, mode fs.FileMode) error {
	tmp := path + ".tmp"
	if err := WriteFile(tmp, b, mode); err != nil {
		return err
	}
	return Rename(tmp, path)
}

// WriteAtomically makes path hold what write writes, or leaves it as it was: write fills a
// temporary file beside path (mode as in WriteFile), which is fsynced and renamed over path,
// then the directory is fsynced. The temporary file is removed on every failure.
func WriteAtomically(path string, mode fs.FileMode, write func(io.Writer) error) (err error) {
	f, err := CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp", mode)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return err
	}
	return Rename(f.Name(), path)
}
