package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// gcFloorBytes is the heap a lookup may grow to before a collection. Its index is mapped, not
// on the heap, so the live heap is a few MiB; at the default GOGC=100 a busy lookup would
// collect dozens of times a second (measured: a quarter of its CPU at 1 million captures).
const gcFloorBytes = 64 << 20

// gcFloor keeps GOGC such that the heap may grow to gcFloorBytes before a collection, and
// back at 100 once the live heap is large (a release pass in the same process), checking
// every second until ctx ends. A GOGC set in the environment is left alone.
func gcFloor(ctx context.Context) {
	if os.Getenv("GOGC") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	current := 100
	for {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			if p := gcPercentFor(sample[0].Value.Uint64(), gcFloorBytes); p != current {
				debug.SetGCPercent(p)
				current = p
			}
		}
		select {
		case <-ctx.Done():
			debug.SetGCPercent(100)
			return
		case <-t.C:
		}
	}
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
