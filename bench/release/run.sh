#!/bin/sh
# Release benchmarks (run deliberately; they build their archives first):
#   1. release bandwidth against cp (and cp + sync) of the same sealed bytes, as a ratio, in one run;
#   2. one pass releasing 1,000 due captures in an index of 1,000,000 (the rest already tombstoned):
#      the due scan alone and the pass end to end. Building the 1,000,000-capture archive takes
#      several minutes and about 2 GB of disk under $TMPDIR.
# Environment: ARCHIVECTL_BENCH_MB (default 200), ARCHIVECTL_BENCH_CAPTURES (default 1000000).
set -eu
cd "$(dirname "$0")/../.."
go test -run '^$' -bench '^BenchmarkReleaseVsCp$' -benchtime 1x -v ./release/ | grep -E 'captures|ratio|ok|FAIL'
go test -run '^$' -bench '^BenchmarkPassInLargeIndex$' -benchtime 1x -timeout 60m -v ./release/ | grep -E 'captures|due|ok|FAIL'
