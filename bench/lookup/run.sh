#!/usr/bin/env bash
# Lookup benchmark at archive scale: for each N (default 1,000,000 and 10,000,000 captures) a
# synthetic public side (go run ./bench/lookup/gen: CDXJ files, then the public index built by
# the code `archivectl reindex-public` runs), then `archivectl serve` over it, measured for:
#   start     launch to the first answered lookup (and the index opening time it reports)
#   heap      runtime.MemStats.HeapInuse (go_memstats_heap_inuse_bytes at /metrics) after wrk, and
#             the largest live heap any garbage collection of the run found (GODEBUG=gctrace=1)
#   RSS       VmRSS after wrk, split into RssAnon (the heap and stacks) and RssFile (the mapped
#             index pages the lookups touched: page cache, shared and reclaimable)
#   req/s     wrk -t2 -c32 for DUR asking random URLs, with p50/p99, and the server's CPU time
#             per answer (utime + stime over answers: what a busy shared machine distorts least)
#   paced     fixed rates (RATES, default 15,000 and 5,000 req/s) for PACED_DUR each from
#             bench/lookup/pace, an open-loop Go client (latency from each request's intended
#             send time, so a saturated server shows as seconds, not as fewer requests), p50/p99
# Each archive's index is also rebuilt once with `archivectl reindex-public` (REINDEX=0 skips it),
# timed. In the same run, the lookup before the public index (BASE, the in-memory loader) is measured
# at the first N, as the baseline. Generated archives are kept under OUT/N and reused.
#
#   bench/lookup/run.sh                       # NS="1000000 10000000" DUR=30s PACED_DUR=30s
#   BASE= bench/lookup/run.sh                 # without the in-memory baseline
#   NS=100000 DUR=5s PACED_DUR=5s bench/lookup/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"
NS=${NS:-"1000000 10000000"}
DUR=${DUR:-30s}
PACED_DUR=${PACED_DUR:-30s}
RATES=${RATES:-"15000 5000"} # paced rates: the goal's, and one a busy shared machine sustains
CONNS=${CONNS:-32}
THREADS=${THREADS:-2}
PORT=${PORT:-18080}
OUT=${OUT:-bench/out/lookup}
BASE=${BASE-19d4e6d} # the last commit whose lookup loads every CDXJ line into memory (and reads the current CDXJ form)

if ! command -v wrk >/dev/null; then
	echo "installing wrk (Debian)"; apt-get install -y -qq wrk >/dev/null
fi
mkdir -p "$OUT"
go build -o "$OUT/archivectl" ./cmd/archivectl
go build -o "$OUT/pace" ./bench/lookup/pace
go build -o "$OUT/gen" ./bench/lookup/gen
if [ -n "$BASE" ] && [ ! -x "$OUT/archivectl-base" ]; then
	rm -rf "$OUT/base-src" && mkdir -p "$OUT/base-src"
	git archive "$BASE" | tar -x -C "$OUT/base-src"
	(cd "$OUT/base-src" && go build -o ../archivectl-base ./cmd/archivectl)
fi

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
results=()

# measure BINARY LABEL N: start, heap, RSS, req/s and paced latency of one serve process.
measure() {
	local bin=$1 label=$2 n=$3 data="$OUT/$3/data" pid t0 t1 first code
	first=$(head -1 "$data/urls.txt")
	t0=$(date +%s.%N)
	GODEBUG=gctrace=1 "$bin" serve --data "$data" --listen "127.0.0.1:$PORT" >"$OUT/serve-$label.out" 2>"$OUT/serve-$label.err" &
	pid=$!
	local tl=""
	for _ in $(seq 1 60000); do
		if [ -z "$tl" ] && grep -q "serve: http" "$OUT/serve-$label.out" 2>/dev/null; then
			tl=$(date +%s.%N)
		fi
		if [ -n "$tl" ]; then
			code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/v1/captures?url=$first" || true)
			[ "$code" = 200 ] && break
		fi
		kill -0 $pid 2>/dev/null || { cat "$OUT/serve-$label.err"; exit 1; }
		sleep 0.002
	done
	t1=$(date +%s.%N)
	local start opened
	start=$(awk -v a="$t0" -v b="$t1" -v l="$tl" 'BEGIN {printf "%.2f s (listening at %.2f s)", b - a, l - a}')
	opened=$(grep -o 'took=[^ ]*' "$OUT/serve-$label.err" | tail -1 | cut -d= -f2)
	export URLS="$data/urls.txt"
	wrk -t"$THREADS" -c"$CONNS" -d3s -s bench/lookup/urls.lua "http://127.0.0.1:$PORT/" >/dev/null # warm-up
	local cpu0 cpu1
	cpu0=$(awk '{print $14 + $15}' "/proc/$pid/stat") # utime + stime, clock ticks
	wrk -t"$THREADS" -c"$CONNS" -d"$DUR" --latency -s bench/lookup/urls.lua "http://127.0.0.1:$PORT/" >"$OUT/wrk-$label.txt"
	cpu1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	local rps p50 p99 heap rss anon file paced cpu
	rps=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$OUT/wrk-$label.txt")
	cpu=$(awk -v a="$cpu1" -v b="$cpu0" -v t="$(getconf CLK_TCK)" '/requests in/ {printf "%.1f us", (a - b) / t / $1 * 1e6}' "$OUT/wrk-$label.txt")
	p50=$(awk '$1 == "50%" {print $2}' "$OUT/wrk-$label.txt")
	p99=$(awk '$1 == "99%" {print $2}' "$OUT/wrk-$label.txt")
	heap=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^go_memstats_heap_inuse_bytes / {printf "%.1f MiB", $2 / 1048576}')
	# The live heap: what each garbage collection found reachable (gctrace's "A->B->C MB": C),
	# the largest over the whole run; HeapInuse above also counts garbage not yet collected.
	live=$(awk '/^gc [0-9]+ @/ { for (i = 1; i <= NF; i++) if ($i ~ /->.*->/) { split($i, m, "->"); if (m[3] + 0 > max) max = m[3] + 0 } } END {printf "%d MB", max}' "$OUT/serve-$label.err")
	rss=$(awk '/^VmRSS/ {printf "%.0f MiB", $2 / 1024}' "/proc/$pid/status")
	anon=$(awk '/^RssAnon/ {printf "%.0f MiB", $2 / 1024}' "/proc/$pid/status")
	file=$(awk '/^RssFile/ {printf "%.0f MiB", $2 / 1024}' "/proc/$pid/status")
	paced=""
	for rate in $RATES; do
		"$OUT/pace" -addr "127.0.0.1:$PORT" -urls "$data/urls.txt" -rate "$rate" -d "$PACED_DUR" >"$OUT/pace-$label-$rate.txt"
		paced+=" | paced $rate/s: $(grep -o '[0-9]* req/s achieved), [0-9]* errors.*' "$OUT/pace-$label-$rate.txt" | sed 's/ req\/s achieved), / achieved, /; s/latency from the intended send time: //')"
	done
	kill -TERM $pid
	wait $pid || true
	results+=("$(printf '%-22s start %s, index opened in %-9s heap %-10s (live at most %s) RSS %-9s (anon %s, file %s) wrk %6s req/s p50 %-8s p99 %-8s server CPU %s/answer%s' \
		"$label" "$start" "${opened:-n/a}" "$heap" "$live" "$rss" "$anon" "$file" "$rps" "$p50" "$p99" "$cpu" "$paced")")
	echo "${results[-1]}"
}

first_n=""
for n in $NS; do
	if [ ! -f "$OUT/$n/done" ]; then
		rm -rf "$OUT/$n" && mkdir -p "$OUT/$n"
		t0=$(date +%s.%N)
		"$OUT/gen" -n "$n" -out "$OUT/$n/data" | tee "$OUT/$n/gen.txt"
		awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f\n", b - a}' >"$OUT/$n/gen-seconds"
		touch "$OUT/$n/done"
	fi
	if [ "${REINDEX:-1}" = 1 ] && [ ! -f "$OUT/$n/reindex.txt" ]; then
		# What a lookup machine given only the CDXJ files runs: the whole index from scratch.
		"$OUT/archivectl" reindex-public --data "$OUT/$n/data" | tee "$OUT/$n/reindex.txt"
	fi
	[ -f "$OUT/$n/reindex.txt" ] && results+=("N=$n $(cut -d: -f1 "$OUT/$n/reindex.txt")")
	idx=$(du -sb "$OUT/$n/data/public/index" | cut -f1)
	cdxj=$(cat "$OUT/$n/data/public/shards/"*.cdxj "$OUT/$n/data/public/tombstones/"*.cdxj | wc -c)
	results+=("$(printf 'N=%-10s generated (CDXJ + index) in %s s; index %.1f MB = %.0f bytes/capture (CDXJ %.0f bytes/capture)' \
		"$n" "$(cat "$OUT/$n/gen-seconds")" "$(echo "$idx / 1000000" | bc -l)" "$(echo "$idx / $n" | bc -l)" "$(echo "$cdxj / $n" | bc -l)")")
	echo "${results[-1]}"
	if [ -z "$first_n" ] && [ -n "$BASE" ]; then
		measure "$OUT/archivectl-base" "base-in-memory-$n" "$n"
	fi
	first_n=$n
	measure "$OUT/archivectl" "index-$n" "$n"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "=== RESULTS"
printf '%s\n' "${results[@]}"
