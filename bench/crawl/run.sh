#!/usr/bin/env bash
# Crawl benchmark. The same loopback site (ORIGINS origins x PAGES pages, bench/crawl/site) is
# crawled by `archivectl crawl --delay 0s` and by Debian's `wget --warc-file -r`, alternately,
# ROUNDS times; pages/s and CPU per page are summed over the rounds and quoted as ratios.
# Two variants: "plain" (pages only) and "cdn" (every page also embeds requisites from CDNS
# shared CDN origins: its own image, its origin's stylesheet and script, and the stylesheets'
# fonts and background images), crawled by archivectl with requisites on (the default) and by
# `wget -r -H -p -D 127.0.0.1` (every origin of the site, CDNs included, is on 127.0.0.1).
# Two more: "article" (article-like pages of 20-60 KB: inline CSS, navigation, 10-30 in-origin
# links in relative, absolute and fragment forms, a canonical link, half with Last-Modified,
# every fourth origin answering Archive-Embargo: m, which archivectl reads with --header-embargo)
# and "article-gz" (the same pages sent with Content-Encoding: gzip; wget decodes them with
# --compression=auto). SIZE does not apply to them. And "browser": the plain site crawled with
# --browser (every page rendered in headless Chromium, each of its requests fetched politely),
# against the same wget; its round lines add Chromium's peak memory (its processes' PSS summed,
# from the crawl's summary), which the crawl's own peak RSS does not include. At about a page a
# second, give it a small site: ORIGINS=2 PAGES=20 VARIANTS="plain browser".
# A "page" is any captured response but robots.txt, requisites included, for both tools.
# Each tool's figures are printed per round, summed, and as medians over the rounds (pages/s,
# CPU per page, peak RSS of the process as /usr/bin/time reports it); the load average is
# printed before and after. Then the peak RSS of a crawl whose frontier holds 100,000 URLs.
# Every origin counts the requests it answers at once; a round where one saw two fails the run.
#
#   bench/crawl/run.sh [ROUNDS]          ORIGINS=20 PAGES=200 CDNS=5 VARIANTS="plain cdn" by default
#                                        SIZE=4096 (HTML bytes a page) THINK=0s (server time a page)
#                                        MEM=0 skips the memory step
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
size=${SIZE:-4096}
think=${THINK:-0s}

work=$(mktemp -d)
site_pid=""
cleanup() {
	if [ -n "$site_pid" ]; then kill "$site_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/archivectl" ./cmd/archivectl
go build -o "$work/crawl-site" ./bench/crawl/site

start_site() {
	rm -f "$work/seeds.txt"
	"$work/crawl-site" "$@" -seeds "$work/seeds.txt" 2>"$work/site.err" &
	site_pid=$!
	while [ ! -s "$work/seeds.txt" ]; do sleep 0.05; done
}
# stop_site stops the site and fails the benchmark if any origin answered two requests at once:
# politeness (one request in flight per origin) is part of what is measured.
stop_site() {
	kill "$site_pid"
	wait "$site_pid" 2>/dev/null || true
	site_pid=""
	local most
	most=$(awk '/in flight on one origin/ {print $4}' "$work/site.err")
	[ "$most" = 1 ] || { echo "run.sh: an origin answered ${most:-?} requests at once: not polite" >&2; exit 1; }
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

echo "== $origins origins x $pages pages of ~$size bytes, think $think, on loopback ($variants; cdn: + $cdns CDN origins), $rounds rounds, $(nproc) cores =="
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
	for variant in $variants; do
		site_args=(-origins "$origins" -pages "$pages" -size "$size" -think "$think")
		wget_args=()
		crawl_args=()
		case $variant in
		cdn)
			site_args+=(-cdns "$cdns")
			wget_args=(-H -p -D 127.0.0.1)
			;;
		article) site_args+=(-article) crawl_args=(--header-embargo) ;;
		browser) crawl_args=(--browser) ;;
		article-gz)
			site_args+=(-article -gzip)
			crawl_args=(--header-embargo)
			wget_args=(--compression=auto)
			;;
		esac
		for tool in archivectl wget; do
			start_site "${site_args[@]}"
			d="$work/$tool-$variant-$r"
			mkdir -p "$d"
			if [ "$tool" = archivectl ]; then
				measure "$variant/archivectl" "awk '/^pages /{print \$2}' $work/$variant-archivectl.out" -- \
					"$work/archivectl" crawl --data "$d" --delay 0s ${crawl_args[@]+"${crawl_args[@]}"} "$work/seeds.txt"
				grep -q '^errors *none' "$work/$variant-archivectl.out" || grep -E '^errors|level=(WARN|ERROR)' "$work/$variant-archivectl.out" >&2
				if [ "$variant" = browser ]; then
					echo "round $r browser: $(grep '^browser ' "$work/$variant-archivectl.out")" >>"$work/browser"
				fi
			else
				# wget's WARC holds robots.txt responses too: count the other responses.
				measure "$variant/wget" "zcat $d/wget.warc.gz | awk '/^WARC-Type: /{t=\$2} /^WARC-Target-URI: /{if (t ~ /^response/ && \$2 !~ /robots[.]txt/) n++} END{print n+0}'" -- \
					wget -q -r -l inf ${wget_args[@]+"${wget_args[@]}"} -e robots=on -i "$work/seeds.txt" --warc-file="$d/wget" -P "$d/files"
			fi
			stop_site
			rm -rf "$d"
		done
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -s "$work/browser" ] && cat "$work/browser"
awk '{ printf "round %-16s %6d pages  %7.2f s wall  %8.1f pages/s  %6.3f ms CPU/page  %6.1f MiB peak RSS\n", $1, $6, $2, $6/$2, 1000*($3+$4)/$6, $5/1024 }' "$work/results"
# medians over the rounds, per tool
for t in $(awk '{print $1}' "$work/results" | sort -u); do
	med() { sort -g | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
	printf "median %-15s %8.1f pages/s  %6.3f ms CPU/page  %6.1f MiB peak RSS\n" "$t" \
		"$(awk -v t="$t" '$1==t{print $6/$2}' "$work/results" | med)" \
		"$(awk -v t="$t" '$1==t{print 1000*($3+$4)/$6}' "$work/results" | med)" \
		"$(awk -v t="$t" '$1==t{print $5/1024}' "$work/results" | med)"
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

[ "${MEM:-1}" = 0 ] && exit 0
echo "== memory: one origin whose pages link 10,000 new URLs each, 12 pages fetched =="
start_site -origins 1 -pages 100001 -links 10000 -size 64
"$work/archivectl" crawl --data "$work/mem" --delay 0s --max-pages 12 "$work/seeds.txt" >"$work/mem.out" 2>&1
stop_site
echo "frontier: $(awk '/^frontier /{print $2}' "$work/mem.out") URLs known; peak RSS $(awk '/^memory /{print $2}' "$work/mem.out") MiB (VmHWM; goal < 200 MiB)"
