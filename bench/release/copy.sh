#!/bin/sh
# A release pass against `cp -r` + `sync` of the same sealed files, in one run (issue 13, point 3):
# CAPTURES due captures (default 4,000) making about MB MB of sealed records (default 66), with
# bodies gzip cannot shrink. Each of RUNS runs (default 5) seals the archive once, then times, over
# ROUNDS rounds (default 7), cp -r + sync and the pass in alternating order, resetting index.db and
# public/ between rounds (BenchmarkReleaseVsCp in release/bench_test.go); it prints its medians and
# the load average. The last line is the median over the runs of each run's median ratio.
#
#   bench/release/copy.sh [RUNS]        CAPTURES=4000 MB=66 ROUNDS=7 by default
set -eu
cd "$(dirname "$0")/../.."
runs=${1:-5}
export ARCHIVECTL_BENCH_COPY_CAPTURES="${CAPTURES:-4000}" ARCHIVECTL_BENCH_MB="${MB:-66}"
bin=$(mktemp "${TMPDIR:-/tmp}/release-bench-XXXXXX")
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" ./release
ratios=""
for i in $(seq "$runs"); do
	line=$(cd release && "$bin" -test.run '^$' -test.bench '^BenchmarkReleaseVsCp$' -test.benchtime "${ROUNDS:-7}x" -test.v 2>&1 |
		grep -E 'captures,|FAIL' | sed 's/^ *bench_test.go:[0-9]*: //')
	echo "run $i: $line; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	ratios="$ratios $(echo "$line" | sed -n 's/.*ratio vs cp+sync \([0-9.]*\),.*/\1/p')"
done
echo "$ratios" | tr ' ' '\n' | grep . | sort -n | awk '{r[NR]=$1} END {m=(NR%2)?r[(NR+1)/2]:(r[NR/2]+r[NR/2+1])/2; printf "median over %d runs of the pass / (cp -r + sync) ratio: %.2f (goal 0.5)\n", NR, m}'
