package main

import (
	"context"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/archivectl/archivectl/internal/watch"
)

// gcFloorBytes is the heap a lookup may grow to before a collection. Its index is mapped, not
// on the heap, so the live heap is a few MiB; at the default GOGC=100 a busy lookup collects
// dozens of times a second (measured: 400 collections in an 18 s wrk run at a million
// captures, 11 to 22 with the floor).
const gcFloorBytes = 64 << 20

// gcFloor keeps GOGC such that the heap may grow to gcFloorBytes before a collection, with a
// soft memory limit of 1.5 times that so that a burst of live memory cannot multiply it, and
// returns both to the defaults once the live heap is large (a release pass in the same
// process), checking every second until ctx ends. A GOGC or GOMEMLIMIT set in the
// environment is left alone.
func gcFloor(ctx context.Context) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	current := 100
	adjust := func(context.Context) error {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			if p := gcPercentFor(sample[0].Value.Uint64(), gcFloorBytes); p != current {
				limit := int64(math.MaxInt64)
				if p > 100 {
					limit = gcFloorBytes * 3 / 2
				}
				debug.SetMemoryLimit(limit)
				debug.SetGCPercent(p)
				current = p
			}
		}
		return nil
	}
	adjust(ctx)
	watch.Every(ctx, time.Second, adjust, nil)
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}

// gcPercentFor is the GOGC that lets a live heap of live bytes grow to floor before the next
// collection, never below 100, rounded to tens so that small changes leave it alone.
func gcPercentFor(live, floor uint64) int {
	if live == 0 || live*2 >= floor {
		return 100
	}
	p := int(floor*100/live) - 100
	return min(p-p%10, 10000)
}
