//go:build unix

package pubindex

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only. The kernel's default advice is kept: a
// fault on a page maps its neighbours already in the page cache too (fault-around), so a
// lookup whose index is cached takes a page fault per 64 KiB it first touches, not one per
// 4 KiB page as under MADV_RANDOM.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

// unmapFile releases a mapping made by mapFile.
func unmapFile(b []byte) { _ = syscall.Munmap(b) }
