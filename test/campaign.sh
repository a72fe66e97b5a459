#!/bin/sh
# The reliability campaign of archivectl (issue 8), in full:
#   property  the leak property test: 10 random archives × 1,000 captures × 12 release passes,
#             and 10 random crawled webs of pages and CDN origins (cross-origin requisites)
#   crash     kill -9 campaign: 50 release passes, 50 crawls, 50 rotating seal batches; and a
#             release pass killed 5 times at every crash point of package release, 50 times at
#             random ones and 50 times after random delays (release's TestKillDuringPass)
#   hostile   corrupt WARC files, malformed CDXJ, hostile queries, the ten hostile servers
#   fuzz      every fuzz target of the repository for $FUZZTIME each (default 10m)
# Usage: test/campaign.sh [property|crash|hostile|fuzz|all]   (default all)
# Environment: ARCHIVECTL_SEED repeats a run exactly; FUZZTIME (default 10m); FUZZ_TARGETS
# narrows the fuzz list ("pkg:Target ..."); OUT is where logs go (default a new temp directory).
# A fuzz target that fails writes its input under that package's testdata/fuzz/ (go test's rule).
# CI runs the short version: `go test ./test/...` (1 archive × 6 passes, 5+5 crash trials) and
# `FUZZTIME=10s test/campaign.sh fuzz`.
set -eu
cd "$(dirname "$0")/.."
what=${1:-all}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/archivectl-campaign-XXXXXX")}
FUZZTIME=${FUZZTIME:-10m}
mkdir -p "$OUT"
echo "campaign: logs in $OUT"

go build -o "$OUT/archivectl" ./cmd/archivectl
export ARCHIVECTL_BIN="$OUT/archivectl"
go test -c -o "$OUT/reliability.test" ./test/reliability/
go test -c -o "$OUT/release.test" ./release/

status=0
tests() { # name regexp [test binary under $OUT, default reliability.test]
	log="$OUT/$1.log"
	if ARCHIVECTL_CAMPAIGN=full "$OUT/${3:-reliability.test}" -test.run "$2" -test.v -test.timeout 4h >"$log" 2>&1; then
		result=ok
	else
		result=FAIL status=1
	fi
	echo "== $1: $result"
	grep -E 'seed [0-9]+ \(|campaign:|leak property:|hostile crawl:|^(--- |ok|FAIL)' "$log" | grep -v -- '--- PASS: .*/' || true
}

case $what in property | all) tests property '^TestNoEarlyPublication(Requisites)?$' ;; esac
case $what in crash | all)
	tests crash '^(TestKillReleasePass|TestKillCrawl|TestKillRotatingSeal)$'
	tests crash-points '^TestKillDuringPass$' release.test
	;;
esac
case $what in hostile | all) tests hostile '^(TestCorruptSealedWARC|TestCorruptPublicShard|TestHostileQueries|TestMalformedCDXJ|TestHostileServers)$' ;; esac

case $what in fuzz | all)
	targets=${FUZZ_TARGETS:-"./crawler/robots:FuzzParse ./crawler/robots:FuzzMatch ./crawler/robots:FuzzContentUsage
./aipref:FuzzParse ./internal/surt:FuzzKey ./store:FuzzParseResponseHead ./store:FuzzParseFacts
./public:FuzzParseLine ./public:FuzzParse ./lookup:FuzzReadPayload ./lookup:FuzzParseCursor
./test/reliability:FuzzReadRecord ./test/reliability:FuzzScanFile ./test/reliability:FuzzDamagedMember
./embargo:FuzzParseHTTPDate ./embargo:FuzzParsePeriod ./crawler:FuzzParseSeeds ./crawler:FuzzExtractLinks"}
	for t in $targets; do
		pkg=${t%%:*} name=${t#*:}
		log="$OUT/fuzz-$(echo "$pkg" | tr / _)-$name.log"
		if go test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -parallel 1 >"$log" 2>&1; then
			result=ok
		else
			result=FAIL status=1
		fi
		execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
		echo "== fuzz $pkg $name $FUZZTIME: $result, ${execs:-?} executions"
	done
	;;
esac
exit $status
