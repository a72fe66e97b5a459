//go:build !linux

package durable

import "os"

// StartWriteback does nothing where sync_file_range is missing: the fsync does all the work.
func StartWriteback(*os.File, int64, int64) {}
