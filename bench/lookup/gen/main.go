// Command gen writes a synthetic public side for the lookup benchmark (see package synth):
// N captures in CDXJ files, state.json, the public index, and the list of URLs to ask for.
//
//	go run ./bench/lookup/gen -n 10000000 -out bench/out/lookup/data
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/archivectl/archivectl/bench/lookup/synth"
)

func main() {
	n := flag.Int("n", 1_000_000, "captures")
	out := flag.String("out", "bench/out/lookup/data", "data directory to write public/ into")
	perURL := flag.Int("per-url", 4, "captures per URL")
	commits := flag.Int("commits", 0, "publish in this many commits, each a segment as a release pass writes it (0: rebuild the index from the CDXJ files at the end)")
	flag.Parse()
	start := time.Now()
	res, err := synth.Write(context.Background(), *out, synth.Options{N: *n, PerURL: *perURL, Commits: *commits,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d captures under %s/public in %s: %s\n", *n, *out, time.Since(start).Round(time.Millisecond), res.Describe())
}
