package main

import (
	"context"
	"fmt"
	"io"
)

// runRelease is not built yet.
func runRelease(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "archivectl release: not implemented yet")
	return 1
}
