#!/usr/bin/env bash
# The lookup against nginx serving one of its answers as a static file, in the same run: issue
# #28's baseline. Over a generated public side of N captures (default 100,000; kept under
# OUT/N), `archivectl serve` and nginx (2 workers, no access log, the answer of the first URL
# saved as the file it serves at /api/v1/captures, whatever the query) both run throughout;
# ROUNDS times, alternating, each is asked by `wrk -t2 -c32` for DUR, URLS_N URLs of urls.txt
# cycled (the same request lines for both), then paced at RATE req/s for PACED_DUR by
# bench/lookup/pace (open loop: latency from each request's intended send time). Prints each
# round and the medians: req/s, p50/p99, the server's CPU time per answer (utime + stime of its
# processes over the answers: what a busy shared machine distorts least), the paced p99, and the
# lookup's ratio to nginx. wrk, pace and both servers share the machine's cores.
#
#   bench/lookup/nginx.sh                 # N=100000 ROUNDS=5 DUR=10s RATE=15000 PACED_DUR=10s URLS_N=1000
#   RATE= bench/lookup/nginx.sh           # without the paced runs
#   BIN=/tmp/archivectl-old bench/lookup/nginx.sh   # another build of archivectl (an earlier commit's)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin:/usr/sbin"
N=${N:-100000}
ROUNDS=${ROUNDS:-5}
DUR=${DUR:-10s}
RATE=${RATE-15000}
PACED_DUR=${PACED_DUR:-10s}
URLS_N=${URLS_N:-1000}
PORT=${PORT:-18082}   # the lookup
NPORT=${NPORT:-18083} # nginx
OUT=${OUT:-bench/out/lookup}

if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
	echo "installing wrk and nginx (Debian)"; apt-get install -y -qq wrk nginx >/dev/null
fi
mkdir -p "$OUT"
BIN=${BIN:-}
if [ -z "$BIN" ]; then
	go build -o "$OUT/archivectl" ./cmd/archivectl
	BIN=$OUT/archivectl
fi
go build -o "$OUT/pace" ./bench/lookup/pace
if [ ! -f "$OUT/$N/done" ]; then
	go build -o "$OUT/gen" ./bench/lookup/gen
	rm -rf "$OUT/$N" && mkdir -p "$OUT/$N"
	"$OUT/gen" -n "$N" -out "$OUT/$N/data"
	touch "$OUT/$N/done"
fi
data="$OUT/$N/data"
work=$(mktemp -d "${TMPDIR:-/tmp}/lookup-nginx.XXXXXX")
head -n "$URLS_N" "$data/urls.txt" >"$work/urls.txt"
export URLS="$work/urls.txt" CYCLE=1

"$BIN" serve --data "$data" --listen "127.0.0.1:$PORT" >"$work/serve.out" 2>"$work/serve.err" &
spid=$!
npid=""
cleanup() {
	kill "$spid" 2>/dev/null || true
	[ -n "$npid" ] && kill "$npid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
first=$(head -1 "$work/urls.txt")
until curl -sf -o /dev/null "http://127.0.0.1:$PORT/api/v1/captures?url=$first"; do
	kill -0 $spid 2>/dev/null || { cat "$work/serve.err"; exit 1; }
	sleep 0.05
done
mkdir -p "$work/www/api/v1"
chmod -R a+rX "$work" # nginx's workers run as nobody
curl -sf -o "$work/www/api/v1/captures" "http://127.0.0.1:$PORT/api/v1/captures?url=$first"
cat >"$work/nginx.conf" <<CONF
daemon off;
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx.err warn;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 100000;
	client_body_temp_path $work/tmp;
	proxy_temp_path $work/tmp;
	fastcgi_temp_path $work/tmp;
	uwsgi_temp_path $work/tmp;
	scgi_temp_path $work/tmp;
	server {
		listen 127.0.0.1:$NPORT;
		root $work/www;
		location = /api/v1/captures { default_type application/json; }
	}
}
CONF
nginx -c "$work/nginx.conf" -p "$work" &
npid=$!
for _ in $(seq 100); do
	curl -sf -o /dev/null "http://127.0.0.1:$NPORT/api/v1/captures?url=x" && break
	kill -0 $npid 2>/dev/null || { cat "$work/nginx.err"; exit 1; }
	sleep 0.05
done
cmp <(curl -s "http://127.0.0.1:$NPORT/api/v1/captures?url=$first") "$work/www/api/v1/captures"

# cpu PID: utime + stime in clock ticks of PID and its children that are alive (nginx's workers).
cpu() {
	local t=0 p
	for p in $1 $(pgrep -P "$1" || true); do
		t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
	done
	echo $t
}

# round NAME PORT PID: prints "req/s p50-ms p99-ms cpu-us-per-answer paced-p99-ms".
round() {
	local port=$2 pid=$3 c0 c1 out p99p=-
	c0=$(cpu "$pid")
	out=$(wrk -t2 -c32 -d"$DUR" --latency -s bench/lookup/urls.lua "http://127.0.0.1:$port/")
	c1=$(cpu "$pid")
	echo "$out" >"$work/wrk-$1.txt"
	if [ -n "$RATE" ]; then
		p99p=$("$OUT/pace" -addr "127.0.0.1:$port" -urls "$URLS" -rate "$RATE" -d "$PACED_DUR" -c 32 | sed -n 's/.* p99 \([0-9.]*\)ms.*/\1/p')
	fi
	echo "$out" | awk -v c=$((c1 - c0)) -v t="$(getconf CLK_TCK)" -v pp="$p99p" '
		function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; return v * 1000 }
		/requests in/ {n = $1} /Requests\/sec/ {r = $2} $1 == "50%" {p50 = ms($2)} $1 == "99%" {p99 = ms($2)}
		END {printf "%.0f %.2f %.2f %.1f %s\n", r, p50, p99, c / t / n * 1e6, pp}'
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { printf '%s\n' "$@" | cut -d' ' -f"$COL" | median; }

echo "machine: $(nproc) cores; N=$N captures, $URLS_N URLs cycled, answer of $(wc -c <"$work/www/api/v1/captures") bytes as nginx's file; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
wrk -t2 -c32 -d2s -s bench/lookup/urls.lua "http://127.0.0.1:$PORT/" >/dev/null # warm-up
wrk -t2 -c32 -d2s -s bench/lookup/urls.lua "http://127.0.0.1:$NPORT/" >/dev/null
ng=() lk=()
for r in $(seq "$ROUNDS"); do
	n=$(round nginx "$NPORT" "$npid")
	l=$(round lookup "$PORT" "$spid")
	ng+=("$n") lk+=("$l")
	read -r nr np50 np99 ncpu npp <<<"$n"
	read -r lr lp50 lp99 lcpu lpp <<<"$l"
	echo "round $r (load $(cut -d' ' -f1 /proc/loadavg)): nginx $nr req/s p50 $np50 p99 $np99 ms, $ncpu us CPU/answer, paced p99 $npp ms;" \
		"lookup $lr req/s p50 $lp50 p99 $lp99 ms, $lcpu us CPU/answer, paced p99 $lpp ms; ratio $(awk -v a="$lr" -v b="$nr" 'BEGIN {printf "%.2f", a / b}')"
done
m() { COL=$1 col "${@:2}"; }
nr=$(m 1 "${ng[@]}") lr=$(m 1 "${lk[@]}")
echo "median of $ROUNDS: nginx $nr req/s p99 $(m 3 "${ng[@]}") ms, $(m 4 "${ng[@]}") us CPU/answer, paced $RATE/s p99 $(m 5 "${ng[@]}") ms;" \
	"lookup $lr req/s p99 $(m 3 "${lk[@]}") ms, $(m 4 "${lk[@]}") us CPU/answer, paced $RATE/s p99 $(m 5 "${lk[@]}") ms;" \
	"ratio of medians $(awk -v a="$lr" -v b="$nr" 'BEGIN {printf "%.2f", a / b}')"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
