package main

import (
	"context"
	"fmt"
	"io"
)

// runVerify is not built yet.
func runVerify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "archivectl verify: not implemented yet")
	return 1
}
