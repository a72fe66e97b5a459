package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestLimitCrawlMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	tests := []struct {
		name       string
		args       []string
		gomemlimit string
		want       int64
	}{
		{"crawl", []string{"crawl", "seeds.txt"}, "", crawlMemoryLimit},
		{"crawl with GOMEMLIMIT", []string{"crawl", "seeds.txt"}, "1GiB", math.MaxInt64},
		{"another command", []string{"serve"}, "", math.MaxInt64},
		{"no command", nil, "", math.MaxInt64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", tc.gomemlimit)
			debug.SetMemoryLimit(math.MaxInt64)
			limitCrawlMemory(tc.args)
			if got := debug.SetMemoryLimit(-1); got != tc.want {
				t.Errorf("limit %d, want %d", got, tc.want)
			}
		})
	}
}
