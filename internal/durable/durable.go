// Package durable writes files so that a crash leaves either the old or the new state on disk:
// file contents are fsynced before they are relied on, and every creation, rename or removal is
// made durable by fsyncing its directory. It uses only the standard library.
package durable

import (
	"fmt"
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

// WriteFile writes b to path with mode (whatever the umask) and fsyncs it.
func WriteFile(path string, b []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil { // whatever the umask
		f.Close()
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
