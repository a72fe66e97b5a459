package main

import (
	"context"
	"fmt"
	"io"
)

// runServe is not built yet.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "archivectl serve: not implemented yet")
	return 1
}
