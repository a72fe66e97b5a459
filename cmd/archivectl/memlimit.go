package main

import (
	"os"
	"runtime/debug"
)

// crawlMemoryLimit is the soft limit of a crawl process's Go memory. A crawl keeps its frontier
// on disk, so what it holds is the captures in flight: near the limit the garbage collector runs
// more often rather than let the heap double (at most half the CPU, the runtime's own bound).
// GOMEMLIMIT, when set, decides instead (raise it for a crawl of many thousands of origins).
const crawlMemoryLimit = 40 << 20

// limitCrawlMemory sets the soft memory limit when args run a crawl and GOMEMLIMIT is unset.
func limitCrawlMemory(args []string) {
	if len(args) > 0 && args[0] == "crawl" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(crawlMemoryLimit)
	}
}
