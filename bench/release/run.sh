#!/bin/sh
# Release benchmarks (run deliberately, on a quiet machine; they build their archives first):
#   1. release bandwidth against cp (and cp + sync) of the same sealed bytes, as a ratio, in one run;
#   2. the index at scale, for each size in ARCHIVECTL_BENCH_SIZES (default 1,000,000 and 10,000,000
#      captures): an archive built by bench/release/gen (store.Seal, a simulated year of crawling,
#      daily passes through the index API), then index.db's bytes per capture, the due scan that
#      yields 1,000 captures with the page cache dropped first (cold) and warm, and one release
#      pass of those 1,000, cold. Each archive is built once under $ARCHIVECTL_BENCH_DIR/gen-N
#      (10,000,000 captures take about 21 GB there) and reused; delete it to rebuild.
#      Dropping the page cache needs root (echo 3 > /proc/sys/vm/drop_caches); without it the scan
#      evicts index.db's pages with posix_fadvise(DONTNEED) and says so.
# Environment: ARCHIVECTL_BENCH_MB (default 200), ARCHIVECTL_BENCH_SIZES (default "1000000 10000000"),
#              ARCHIVECTL_BENCH_DIR (default $TMPDIR/archivectl-release-bench).
set -eu
cd "$(dirname "$0")/../.."
export ARCHIVECTL_BENCH_DIR="${ARCHIVECTL_BENCH_DIR:-${TMPDIR:-/tmp}/archivectl-release-bench}"
sizes="${ARCHIVECTL_BENCH_SIZES:-1000000 10000000}"
mkdir -p "$ARCHIVECTL_BENCH_DIR"

go test -run '^$' -bench '^BenchmarkReleaseVsCp$' -benchtime 1x -v ./release/ | grep -E 'captures|ok|FAIL'

go build -o "$ARCHIVECTL_BENCH_DIR/gen" ./bench/release/gen
go build -o "$ARCHIVECTL_BENCH_DIR/scan" ./bench/release/scan
for n in $sizes; do
	dir="$ARCHIVECTL_BENCH_DIR/gen-$n"
	if [ ! -f "$dir/bench.json" ]; then
		rm -rf "$dir"
		echo "building $dir ..."
		"$ARCHIVECTL_BENCH_DIR/gen" -n "$n" -out "$dir" >/dev/null
	fi
	grep -E '"(captures|build_seconds|cpu_seconds)"' "$dir/bench.json" | tr -d ' \n'
	echo
done
for n in $sizes; do
	"$ARCHIVECTL_BENCH_DIR/scan" -dir "$ARCHIVECTL_BENCH_DIR/gen-$n" -pass
done
