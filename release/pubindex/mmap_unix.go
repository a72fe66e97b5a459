//go:build unix

package pubindex

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only. Lookups touch blocks at random, so the
// kernel is told not to read ahead: only the pages asked for enter the page cache.
func mapFile(f *os.File, size int64) ([]byte, error) {
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	_ = syscall.Madvise(b, syscall.MADV_RANDOM) // advice only
	return b, nil
}

// unmapFile releases a mapping made by mapFile.
func unmapFile(b []byte) { _ = syscall.Munmap(b) }
