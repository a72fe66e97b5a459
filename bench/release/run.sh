#!/bin/sh
# Release benchmarks (run deliberately, on a quiet machine; they build their archives first):
#   1. release bandwidth against cp (and cp + sync) of the same sealed bytes, as a ratio, in one run;
#   2. one pass releasing 1,000 due captures in an index of 1,000,000 (the rest already tombstoned):
#      the due scan (first and warm) and the pass end to end. The 1,000,000-capture archive (~4 GB)
#      is built once under $ARCHIVECTL_BENCH_DIR/template-N (about half an hour on 2 busy cores) and
#      copied for every run; delete that directory to reclaim the space.
# Environment: ARCHIVECTL_BENCH_MB (default 200), ARCHIVECTL_BENCH_CAPTURES (default 1000000),
#              ARCHIVECTL_BENCH_DIR (default $TMPDIR/archivectl-release-bench).
set -eu
cd "$(dirname "$0")/../.."
export ARCHIVECTL_BENCH_DIR="${ARCHIVECTL_BENCH_DIR:-${TMPDIR:-/tmp}/archivectl-release-bench}"
go test -run '^$' -bench '^BenchmarkReleaseVsCp$' -benchtime 1x -v ./release/ | grep -E 'captures|ok|FAIL'
go test -run '^$' -bench '^BenchmarkPassInLargeIndex$' -benchtime 1x -timeout 90m -v ./release/ | grep -E 'captures|ok|FAIL'
