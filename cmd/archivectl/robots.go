package main

import (
	"context"
	"fmt"
	"io"
)

// runRobots is not built yet.
func runRobots(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "archivectl robots: not implemented yet")
	return 1
}
