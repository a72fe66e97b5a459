package main

import (
	"context"
	"fmt"
	"io"
)

// runDemo is not built yet.
func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "archivectl demo: not implemented yet")
	return 1
}
