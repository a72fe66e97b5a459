package main

import (
	"context"
	"fmt"
	"io"
)

// runCrawl is not built yet.
func runCrawl(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "archivectl crawl: not implemented yet")
	return 1
}
