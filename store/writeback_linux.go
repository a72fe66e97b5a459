package store

import (
	"os"
	"syscall"
)

// startWriteback asks the kernel to start writing n bytes of f at off to disk without waiting
// for them (sync_file_range SYNC_FILE_RANGE_WRITE). It is only a head start for the fsync that
// makes them durable, so it reports nothing.
func startWriteback(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		syscall.SyncFileRange(int(fd), off, n, 2) // SYNC_FILE_RANGE_WRITE
	})
}
