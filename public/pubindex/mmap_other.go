//go:build !unix

package pubindex

import (
	"errors"
	"os"
)

// mapFile is not available here: segments are read with pread.
func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }

// unmapFile does nothing: nothing is ever mapped.
func unmapFile([]byte) {}
