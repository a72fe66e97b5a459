#!/usr/bin/env bash
# Requests/s of the lookup against its baseline, alternating: ROUNDS times, the in-memory lookup
# (BASE, built by run.sh) over the public side of N=BASE_N captures, then the public index over
# N=INDEX_N, each a fresh `serve` warmed up for 3 s, then `wrk -t2 -c32` for DUR asking random
# URLs of its urls.txt. Prints each round (req/s and the server's CPU time per answer) and the
# medians. On a shared 2-core machine one run of each varies by 10-20 %; alternating rounds and
# medians is what makes the ratio mean something. Needs the archives run.sh generated (OUT).
#
#   bench/lookup/ab.sh                  # ROUNDS=5 DUR=20s BASE_N=1000000 INDEX_N=10000000
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-bench/out/lookup}
ROUNDS=${ROUNDS:-5}
DUR=${DUR:-20s}
BASE_N=${BASE_N:-1000000}
INDEX_N=${INDEX_N:-10000000}
PORT=${PORT:-18081}
for f in "$OUT/archivectl-base" "$OUT/$BASE_N/data/urls.txt" "$OUT/$INDEX_N/data/urls.txt"; do
	[ -e "$f" ] || { echo "ab.sh: $f is missing; run bench/lookup/run.sh first" >&2; exit 2; }
done
go build -o "$OUT/archivectl" ./cmd/archivectl

# round BINARY N: prints "req/s cpu-us-per-answer" of one serve process under wrk.
round() {
	local bin=$1 data="$OUT/$2/data" pid c0 c1 out
	"$bin" serve --data "$data" --listen "127.0.0.1:$PORT" >/dev/null 2>&1 &
	pid=$!
	until curl -s -o /dev/null "http://127.0.0.1:$PORT/api/v1/calendar"; do
		kill -0 $pid 2>/dev/null || { echo "ab.sh: serve exited" >&2; exit 1; }
		sleep 0.1
	done
	export URLS="$data/urls.txt"
	wrk -t2 -c32 -d3s -s bench/lookup/urls.lua "http://127.0.0.1:$PORT/" >/dev/null
	c0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	out=$(wrk -t2 -c32 -d"$DUR" -s bench/lookup/urls.lua "http://127.0.0.1:$PORT/")
	c1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	kill $pid
	wait $pid 2>/dev/null || true
	echo "$out" | awk -v c=$((c1 - c0)) -v t="$(getconf CLK_TCK)" \
		'/requests in/ {n = $1} /Requests\/sec/ {r = $2} END {printf "%.0f %.1f\n", r, c / t / n * 1e6}'
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "machine: $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
base=() index=()
for r in $(seq "$ROUNDS"); do
	b=$(round "$OUT/archivectl-base" "$BASE_N")
	i=$(round "$OUT/archivectl" "$INDEX_N")
	base+=("$b") index+=("$i")
	echo "round $r: in-memory at $BASE_N: ${b% *} req/s, ${b#* } us CPU/answer; index at $INDEX_N: ${i% *} req/s, ${i#* } us CPU/answer; ratio $(awk -v a="${i% *}" -v b="${b% *}" 'BEGIN {printf "%.2f", a / b}')"
done
bm=$(printf '%s\n' "${base[@]}" | cut -d' ' -f1 | median)
im=$(printf '%s\n' "${index[@]}" | cut -d' ' -f1 | median)
echo "median: in-memory at $BASE_N $bm req/s ($(printf '%s\n' "${base[@]}" | cut -d' ' -f2 | median) us CPU/answer);" \
	"index at $INDEX_N $im req/s ($(printf '%s\n' "${index[@]}" | cut -d' ' -f2 | median) us CPU/answer);" \
	"ratio of medians $(awk -v a="$im" -v b="$bm" 'BEGIN {printf "%.2f", a / b}')"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
