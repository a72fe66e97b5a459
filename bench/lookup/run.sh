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
wrk -t"$THREADS" -c"$CONNS" -d3s -s bench/lookup/urls.lua "http://127.0.0.1:$PORT/" >/dev/null # warm-up
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, in clock ticks
tick=$(getconf CLK_TCK)
before=$(cpu $pid)
wrk -t"$THREADS" -c"$CONNS" -d"$DUR" --latency -s bench/lookup/urls.lua "http://127.0.0.1:$PORT/" | tee "$OUT/wrk.txt"
after=$(cpu $pid)
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/wrk.txt")
p99=$(awk '$1 == "99%" {print $2}' "$OUT/wrk.txt")
non2xx=$(awk '/Non-2xx/ {print $NF}' "$OUT/wrk.txt")
requests=$(awk '/requests in/ {print $1}' "$OUT/wrk.txt")
# CPU the server spent per answer: on a busy shared machine this, not the wall-clock rate, says
# what 2 idle cores would sustain (2 cores / CPU per answer, before wrk's own share).
us=$(awk -v a="$after" -v b="$before" -v t="$tick" -v n="$requests" 'BEGIN {printf "%.1f", (a - b) / t / n * 1e6}')
echo "RESULT captures=$N requests_per_s=$rps p99=$p99 non_2xx=${non2xx:-0} server_cpu_per_request=${us}us (goal: >= 20000 req/s, p99 < 5ms)"

kill -TERM $pid
wait $pid && echo "serve exited 0 on SIGTERM"
