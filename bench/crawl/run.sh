#!/usr/bin/env bash
# Crawl benchmark. The same loopback site (ORIGINS origins x PAGES pages, bench/crawl/site) is
# crawled by `archivectl crawl --delay 0s` and by Debian's `wget --warc-file -r`, alternately,
# ROUNDS times; pages/s and CPU per page are summed over the rounds and quoted as ratios.
# Two variants: "plain" (pages only) and "cdn" (every page also embeds requisites from CDNS
# shared CDN origins: its own image, its origin's stylesheet and script, and the stylesheets'
# fonts and background images), crawled by archivectl with requisites on (the default) and by
# `wget -r -H -p -D 127.0.0.1` (every origin of the site, CDNs included, is on 127.0.0.1).
# A "page" is any captured response but robots.txt, requisites included, for both tools.
# Then the peak RSS of a crawl whose frontier holds 100,000 URLs.
#
#   bench/crawl/run.sh [ROUNDS]          ORIGINS=20 PAGES=200 CDNS=5 VARIANTS="plain cdn" by default
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"
command -v wget >/dev/null || { echo "run.sh: wget is needed: apt-get install -y wget" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time is needed: apt-get install -y time" >&2; exit 1; }
rounds=${1:-3}
origins=${ORIGINS:-20}
pages=${PAGES:-200}
cdns=${CDNS:-5}
variants=${VARIANTS:-plain cdn}

work=$(mktemp -d)
site_pid=""
cleanup() {
	if [ -n "$site_pid" ]; then kill "$site_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/archivectl" ./cmd/archivectl
go build -o "$work/site" ./bench/crawl/site

start_site() {
	rm -f "$work/seeds.txt"
	"$work/site" "$@" -seeds "$work/seeds.txt" 2>/dev/null &
	site_pid=$!
	while [ ! -s "$work/seeds.txt" ]; do sleep 0.05; done
}
stop_site() {
	kill "$site_pid"
	wait "$site_pid" 2>/dev/null || true
	site_pid=""
}
# measure TOOL PAGES_CMD -- CMD...: runs CMD under /usr/bin/time, then PAGES_CMD counts its pages;
# appends "TOOL wall user sys maxrss_kb pages" to $work/results.
measure() {
	local tool=$1 count=$2
	shift 3
	local out="$work/${tool//\//-}.out"
	/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
	echo "$tool $(cat "$work/time") $(eval "$count")" >>"$work/results"
}

echo "== $origins origins x $pages pages on loopback ($variants; cdn: + $cdns CDN origins), $rounds rounds, $(nproc) cores =="
for r in $(seq 1 "$rounds"); do
	for variant in $variants; do
		site_args=(-origins "$origins" -pages "$pages")
		wget_args=()
		if [ "$variant" = cdn ]; then
			site_args+=(-cdns "$cdns")
			wget_args=(-H -p -D 127.0.0.1)
		fi
		for tool in archivectl wget; do
			start_site "${site_args[@]}"
			d="$work/$tool-$variant-$r"
			mkdir -p "$d"
			if [ "$tool" = archivectl ]; then
				measure "$variant/archivectl" "awk '/^pages /{print \$2}' $work/$variant-archivectl.out" -- \
					"$work/archivectl" crawl --data "$d" --delay 0s "$work/seeds.txt"
				grep -q '^errors *none' "$work/$variant-archivectl.out" || grep -E '^errors|level=(WARN|ERROR)' "$work/$variant-archivectl.out" >&2
			else
				# wget's WARC holds robots.txt responses too: count the other responses.
				measure "$variant/wget" "zcat $d/wget.warc.gz | awk '/^WARC-Type: /{t=\$2} /^WARC-Target-URI: /{if (t ~ /^response/ && \$2 !~ /robots[.]txt/) n++} END{print n+0}'" -- \
					wget -q -r -l inf "${wget_args[@]}" -e robots=on -i "$work/seeds.txt" --warc-file="$d/wget" -P "$d/files"
			fi
			stop_site
			rm -rf "$d"
		done
	done
done
awk '
	{ wall[$1] += $2; cpu[$1] += $3 + $4; pages[$1] += $6; n[$1]++ }
	END {
		for (t in wall) printf "%-16s %6d pages  %7.2f s wall  %7.2f s CPU  %8.1f pages/s  %6.3f ms CPU/page\n", t, pages[t], wall[t], cpu[t], pages[t]/wall[t], 1000*cpu[t]/pages[t]
		for (v in wall) {
			split(v, vt, "/"); if (vt[2] != "archivectl" || !((vt[1] "/wget") in wall)) continue
			a = pages[v]/wall[v]; w = pages[vt[1] "/wget"]/wall[vt[1] "/wget"]
			printf "%s: archivectl crawls %.2fx the pages/s of wget and uses %.2fx less CPU per page\n", vt[1], a/w, (cpu[vt[1] "/wget"]/pages[vt[1] "/wget"])/(cpu[v]/pages[v])
		}
	}' "$work/results"

echo "== memory: one origin whose pages link 10,000 new URLs each, 12 pages fetched =="
start_site -origins 1 -pages 100001 -links 10000 -size 64
"$work/archivectl" crawl --data "$work/mem" --delay 0s --max-pages 12 "$work/seeds.txt" >"$work/mem.out" 2>&1
stop_site
echo "frontier: $(awk '/^frontier /{print $2}' "$work/mem.out") URLs known; peak RSS $(awk '/^memory /{print $2}' "$work/mem.out") MiB (VmHWM; goal < 200 MiB)"
