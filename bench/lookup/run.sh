#!/usr/bin/env bash
# Lookup benchmark: N (default 1,000,000) synthetic public captures, `archivectl serve` on
# loopback, wrk asking /api/v1/captures for random URLs. Prints index load time, memory,
# requests/s and latency percentiles. Goal: >= 20,000 req/s and p99 < 5 ms on 2 cores.
#
#   bench/lookup/run.sh                 # N=1000000 DUR=20s CONNS=32 THREADS=2
#   N=100000 DUR=5s bench/lookup/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"
N=${N:-1000000}
DUR=${DUR:-20s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-2}
PORT=${PORT:-18080}
OUT=${OUT:-bench/out/lookup}

if ! command -v wrk >/dev/null; then
	echo "installing wrk (Debian)"; apt-get install -y -qq wrk >/dev/null
fi
mkdir -p "$OUT"
go build -o "$OUT/archivectl" ./cmd/archivectl
if [ "$(cat "$OUT/n" 2>/dev/null)" != "$N" ]; then
	rm -rf "$OUT/data"
	go run ./bench/lookup/gen -n "$N" -out "$OUT/data"
	echo "$N" >"$OUT/n"
fi

echo "machine: $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$OUT/archivectl" serve --data "$OUT/data" --listen "127.0.0.1:$PORT" >"$OUT/serve.out" 2>"$OUT/serve.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
	grep -q "serve: http" "$OUT/serve.out" 2>/dev/null && break
	kill -0 $pid 2>/dev/null || { cat "$OUT/serve.err"; exit 1; }
	sleep 0.1
done
grep -o 'released=[0-9]* embargoed=[0-9]* malformed_lines=[0-9]* took=[^ ]*' "$OUT/serve.err" | sed 's/^/index: /'
grep -E 'VmRSS' /proc/$pid/status | sed 's/^/memory: /'

export URLS="$OUT/data/urls.txt"
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, in clock ticks
tick=$(getconf CLK_TCK)

# measure LABEL WRK-ARGS...: one wrk run; prints requests/s, p99 and the server's CPU per answer.
measure() {
	local label=$1 before after; shift
	before=$(cpu $pid)
	wrk -t"$THREADS" -c"$CONNS" -d"$DUR" --latency "$@" >"$OUT/wrk-$label.txt"
	after=$(cpu $pid)
	awk -v label="$label" -v a="$after" -v b="$before" -v t="$tick" '
		/requests in/ {n = $1} /Requests\/sec/ {rps = $2} $1 == "99%" {p99 = $2} $1 == "50%" {p50 = $2} /Non-2xx/ {bad = $NF}
		END {printf "%-9s %10.0f req/s   p50 %-8s p99 %-8s non-2xx %-6d server CPU %.1f us/answer\n", label, rps, p50, p99, bad, (a - b) / t / n * 1e6}' "$OUT/wrk-$label.txt"
}

wrk -t"$THREADS" -c"$CONNS" -d3s -s bench/lookup/urls.lua "http://127.0.0.1:$PORT/" >/dev/null # warm-up
# The baseline is the same server answering a request it rejects at once (400, tiny JSON): the
# HTTP stack, routing, metrics and headers without the index, measured in the same run, so a
# busy shared machine shows as a ratio rather than as a bare number.
measure baseline "http://127.0.0.1:$PORT/api/v1/captures"
measure lookup -s bench/lookup/urls.lua "http://127.0.0.1:$PORT/"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$OUT/wrk-lookup.txt"
awk '/Requests\/sec/ {r[FILENAME] = $2} END {for (f in r) if (f ~ /wrk-lookup/) l = r[f]; else b = r[f]; printf "RESULT lookup/baseline throughput ratio %.2f (goal: >= 20000 req/s and p99 < 5 ms on 2 idle cores)\n", l / b}' "$OUT/wrk-baseline.txt" "$OUT/wrk-lookup.txt"

kill -TERM $pid
wait $pid && echo "serve exited 0 on SIGTERM"
