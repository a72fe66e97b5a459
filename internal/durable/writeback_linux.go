package durable

import (
	"os"
	"syscall"
)

// StartWriteback asks the kernel to start writing n bytes of f at off to disk without waiting for
// them (sync_file_range with SYNC_FILE_RANGE_WRITE): a head start for the fsync that makes them
// durable, which then has less left to wait for. It is only a hint, so it reports nothing.
func StartWriteback(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		syscall.SyncFileRange(int(fd), off, n, 2) // SYNC_FILE_RANGE_WRITE
	})
}
