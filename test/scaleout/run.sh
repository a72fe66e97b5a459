#!/usr/bin/env bash
# Scale-out test: SeaweedFS on loopback, a 12-origin loopback site of 31 pages each (no embargo, a week, a month, a
# quarter, by origin; each home page embedding an image of the next origin, and one its robots.txt
# disallows, and a stylesheet of the origin after, which embeds a background image of its own
# origin, and one disallowed), three crawl nodes given the same seeds with --partition k/3, their release
# passes at four --now values publishing into one bucket, and two lookup nodes serving the bucket
# with read-only credentials. Checks, from the site's log and from the bucket itself:
#   - every origin was crawled by exactly one node, the one its partition names, and every image
#     stylesheet and background image requested (handed off through the bucket when another
#     node's page or stylesheet embeds it), no disallowed one;
#   - after each round of passes the bucket holds every due capture exactly once and not one
#     byte of an embargoed body (every object searched, gzip members decompressed), every
#     requisite released exactly once when due and withheld (not even a tombstone) while what
#     embeds it is embargoed;
#   - after the rounds at +8 and +100 days every released page replays complete: its due requisites are released,
#     warcio.js's indexer (test/replay/index.mjs) over the released WARC files fetched from the
#     bucket finds every released capture where the public CDXJ puts it, and wabac.js (the engine
#     of ReplayWeb.page, test/replay/replay.mjs) over a WACZ of those files made by js-wacz
#     replays every released home page and due requisite from the archive;
#   - both lookup nodes answer the same for every URL, and what they answer is the bucket's;
#   - a crawl node killed (SIGKILL) mid-crawl, its data directory deleted, and restored with
#     crawl --restore from its sealed bucket (sealed: s3://sealed/crawl-K, a checkpoint a second)
#     completes its partition: every page sealed and released exactly once, verify exits 0 on
#     every node, and the lookups' identity gets 403 from the sealed bucket.
#
#   test/scaleout/run.sh        (needs the weed binary: ARCHIVECTL_WEED, or test/seaweedfs/install.sh's cache)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"

log() { printf '\n== run.sh: %s\n' "$*"; }
die() { printf 'run.sh: FAILED: %s\n' "$*" >&2; exit 1; }

weed=${ARCHIVECTL_WEED:-}
if [ -z "$weed" ]; then
	weed=$(bash test/seaweedfs/install.sh) || die "no SeaweedFS: test/seaweedfs/install.sh failed"
fi
[ -x "$weed" ] || die "ARCHIVECTL_WEED=$weed is not an executable"
# warcio.js, for the replay check (test/replay: Node.js 20 or later and the npm registry, or its cache).
if [ -z "${ARCHIVECTL_REPLAY_NODE_DIR:-}" ]; then
	ARCHIVECTL_REPLAY_NODE_DIR=$(bash test/replay/install.sh) || die "no replay engines: test/replay/install.sh failed"
fi
export ARCHIVECTL_REPLAY_NODE_DIR

work=$(mktemp -d "${TMPDIR:-/tmp}/scaleout-XXXXXX")
pids=()
used=" " # ports taken by this run (free_port)
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for p in $used; do rm -f /tmp/seaweedfs-*-grpc-"$p".sock; done # weed's gRPC sockets, left by SIGKILL
	if [ "${KEEP:-}" = "" ]; then rm -rf "$work"; else echo "run.sh: kept $work"; fi
}
trap cleanup EXIT

log "building archivectl and the test's helpers"
go build -o "$work/archivectl" ./cmd/archivectl
go build -o "$work/site" ./test/scaleout/site
go build -o "$work/check" ./test/scaleout/check

# Loopback ports whose port + 10000 (weed's gRPC) is free too, both below the kernel's ephemeral
# ports (32768 and up) that an outgoing connection may take meanwhile.
free_port() {
	local p
	while :; do
		p=$((10000 + RANDOM % 12000))
		case "$used" in *" $p "* | *" $((p + 10000)) "*) continue ;; esac
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && ! (exec 3<>"/dev/tcp/127.0.0.1/$((p + 10000))") 2>/dev/null; then
			used="$used$p $((p + 10000)) "
			port=$p # not echoed: a $(subshell) would lose what used records
			return
		fi
	done
}

log "starting SeaweedFS"
mkdir -p "$work/weed/data"
cat >"$work/weed/s3.json" <<'EOF'
{"identities": [
  {"name": "writer", "credentials": [{"accessKey": "scaleout-writer", "secretKey": "scaleout-writer-secret"}], "actions": ["Admin", "Read", "List", "Tagging", "Write"]},
  {"name": "reader", "credentials": [{"accessKey": "scaleout-reader", "secretKey": "scaleout-reader-secret"}], "actions": ["Read:archive", "List:archive"]}
]}
EOF
start_weed() {
	free_port; s3port=$port
	free_port; local master=$port
	free_port; local volume=$port
	free_port; local filer=$port
	"$weed" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$work/weed/data" \
		-master.port="$master" -volume.port="$volume" -filer -filer.port="$filer" \
		-filer.localSocket="$work/weed/filer.sock" -s3 -s3.port="$s3port" -s3.config="$work/weed/s3.json" \
		-s3.localSocket="$work/weed/s3.sock" -s3.port.iceberg=0 -s3.port.lance=0 \
		-master.volumeSizeLimitMB=256 -volume.max=64 -volume.preStopSeconds=0 -master.raftHashicorp \
		>"$work/weed/weed.log" 2>&1 &
	weed_pid=$!
	pids+=($weed_pid)
}

# The AWS environment of a process: endpoint, credentials, region; no shared files, no instance metadata.
aws_env() { # writer|reader
	echo AWS_ENDPOINT_URL="http://127.0.0.1:$s3port" AWS_ACCESS_KEY_ID="scaleout-$1" \
		AWS_SECRET_ACCESS_KEY="scaleout-$1-secret" AWS_REGION=us-east-1 AWS_CONFIG_FILE=/dev/null \
		AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true
}
as() { local who=$1; shift; env $(aws_env "$who") "$@"; }

start=$SECONDS
for attempt in 1 2 3; do
	start_weed
	if as writer "$work/check" mkbucket archive "$weed_pid" && as writer "$work/check" mkbucket sealed "$weed_pid"; then break; fi
	kill -9 "$weed_pid" 2>/dev/null || true
	# Another process took a port between the check and weed's bind: other ports.
	grep -q "address already in use" "$work/weed/weed.log" && [ "$attempt" -lt 3 ] || { tail -20 "$work/weed/weed.log"; die "SeaweedFS did not start"; }
	echo "a port was taken meanwhile; starting SeaweedFS on other ports"
	rm -rf "$work/weed/data" && mkdir -p "$work/weed/data"
done
echo "SeaweedFS ready in $((SECONDS - start))s at http://127.0.0.1:$s3port"
bucket=s3://archive/public

log "starting the site"
pages=30
"$work/site" -origins 12 -pages "$pages" -latency 40ms -dir "$work" 2>/dev/null &
pids+=($!)
while [ ! -s "$work/seeds.txt" ]; do sleep 0.05; done

for k in 0 1 2; do
	cat >"$work/node-$k.yaml" <<EOF
data: $work/node-$k
crawl:
  user_agent: "archivectl-scaleout node-$k"
  delay: 0s
  partition: "$k/3"
handoff:
  interval: 1s
  linger: 10s
release:
  shard_size: 65536
public: $bucket
node: crawl-$k
sealed: s3://sealed/crawl-$k
sealed_store:
  checkpoint: 1s
EOF
done

log "crawling: three nodes, the same seeds, --partition k/3, handing each other requisites (node 2 killed mid-crawl, its disk deleted, restored from its sealed bucket)"
crawl_start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
env $(aws_env writer) "$work/archivectl" crawl --config "$work/node-0.yaml" "$work/seeds.txt" >"$work/crawl-0.out" 2>"$work/crawl-0.err" &
c0=$!
env $(aws_env writer) "$work/archivectl" crawl --config "$work/node-1.yaml" "$work/seeds.txt" >"$work/crawl-1.out" 2>"$work/crawl-1.err" &
c1=$!
env $(aws_env writer) "$work/archivectl" crawl --config "$work/node-2.yaml" "$work/seeds.txt" >"$work/crawl-2.out" 2>"$work/crawl-2.err" &
c2=$!
# Kill node 2 once it is well into its partition (30 requests in the site's log), so that some
# of its captures are sealed and some are not: a fixed sleep was too short on a quiet machine.
for _ in $(seq 200); do
	[ "$(grep -c 'node-2$' "$work/site.log" || true)" -ge 30 ] && break
	sleep 0.05
done
# ... and once a checkpoint of it is in its sealed bucket (one a second).
for _ in $(seq 100); do
	as writer "$work/check" checkpoint s3://sealed/crawl-2 >/dev/null && break
	sleep 0.1
done
kill -9 "$c2" 2>/dev/null || die "node 2's crawl ended before it could be killed: make the site slower"
status=0
wait "$c2" || status=$?
[ "$status" = 137 ] || die "node 2's crawl exited $status, not killed"
sealed_before=$(grep -c 'node-2$' "$work/site.log" || true)
as writer "$work/check" checkpoint s3://sealed/crawl-2 || die "node 2 left no checkpoint in its sealed bucket"
rm -rf "$work/node-2" # its disk is lost: sealed files, index, frontier
as writer "$work/archivectl" crawl --config "$work/node-2.yaml" --restore "$work/seeds.txt" >"$work/crawl-2b.out" 2>"$work/crawl-2b.err" ||
	die "node 2's restored crawl failed: $(tail -3 "$work/crawl-2b.err")"
grep -q "restored from the sealed store" "$work/crawl-2b.err" || die "node 2 was not restored: $(head -3 "$work/crawl-2b.err")"
wait "$c0" || die "node 0's crawl failed: $(tail -3 "$work/crawl-0.err")"
wait "$c1" || die "node 1's crawl failed: $(tail -3 "$work/crawl-1.err")"
crawl_end=$(date -u +%Y-%m-%dT%H:%M:%SZ)
grep -q "from earlier runs" "$work/crawl-2b.out" || die "node 2's restored crawl did not resume: $(cat "$work/crawl-2b.out")"
for k in 0 1 2b; do echo "node $k: $(head -1 "$work/crawl-$k.out")"; done
echo "node 2 had made $sealed_before requests when it was killed and its data directory deleted"
"$work/check" origins "$work" 3
last=$(as writer "$work/check" checkpoint s3://sealed/crawl-2 | sed -n 's/^last checkpoint in [^ ]*: //p')
as reader "$work/check" denied s3://sealed/crawl-2 "checkpoints/$last.json" || die "a lookup node's identity reads the sealed bucket"

# The lookup nodes: read-only credentials, each its own data directory for its view.
lookups=()
for l in 1 2; do
	free_port
	# env, not the function as: env execs archivectl, so $! is the server itself and cleanup ends it.
	env $(aws_env reader) "$work/archivectl" serve --public "$bucket" --data "$work/lookup-$l" --listen "127.0.0.1:$port" \
		>"$work/lookup-$l.out" 2>"$work/lookup-$l.err" &
	pids+=($!)
	lookups+=("http://127.0.0.1:$port")
done

compare_lookups() {
	local differ=0 n=0 url q a b
	while read -r seed; do
		for path in "" $(seq -f 'p/%g' 0 $((pages - 1))); do
			url="${seed}${path}"
			q=$(printf '%s' "$url" | sed 's/:/%3A/g; s#/#%2F#g')
			a=$(curl -s "${lookups[0]}/api/v1/captures?url=$q")
			b=$(curl -s "${lookups[1]}/api/v1/captures?url=$q")
			n=$((n + 1))
			if [ "$a" != "$b" ]; then
				differ=$((differ + 1))
				echo "lookups differ on $url:"; echo "  $a"; echo "  $b"
			fi
			case "$a" in *'"captures":[{'*) ;; *) echo "no capture of $url: $a"; differ=$((differ + 1)) ;; esac
		done
	done <"$work/seeds.txt"
	[ "$differ" = 0 ] || die "the two lookup nodes differ on $differ of $n URLs"
	echo "both lookup nodes answer the same for all $n URLs"
}

for days in 1 8 40 100; do
	now=$(date -u -d "$crawl_end + $days days" +%Y-%m-%dT%H:%M:%SZ)
	log "release passes at $now (+$days days), each node publishing into $bucket"
	for k in 0 1 2; do
		as writer "$work/archivectl" release --config "$work/node-$k.yaml" --now "$now" | sed "s/^/node $k: /"
	done
	as reader "$work/check" bucket "$bucket" "$work" 3 "$now" "$crawl_start" "$crawl_end"
	# Replayed after the pass that ends the week's embargo and after the last (5 s each).
	if [ "$days" = 8 ] || [ "$days" = 100 ]; then
		rm -rf "$work/replay" && mkdir "$work/replay"
		t=$SECONDS
		as reader "$work/check" replay "$bucket" "$work" 3 "$now" "$crawl_end" test/replay "$work/replay"
		echo "check replay took $((SECONDS - t)) s"
	fi
	for k in 0 1 2; do
		as writer "$work/archivectl" verify --config "$work/node-$k.yaml" >"$work/verify-$k.out" 2>&1 || die "verify of node $k: $(tail -5 "$work/verify-$k.out")"
	done
	# The lookups look for new generations every 5 s; then they answer from the new view.
	sleep 7
	for l in 0 1; do
		curl -sf "${lookups[$l]}/api/v1/calendar" >/dev/null || die "lookup node $((l + 1)) does not answer: $(tail -3 "$work/lookup-$((l + 1)).err")"
	done
	compare_lookups
done

log "a released record, streamed by a lookup node from the bucket with a ranged GET"
first=$(head -1 "$work/seeds.txt")
q=$(printf '%s' "$first" | sed 's/:/%3A/g; s#/#%2F#g')
body=$(curl -sf "${lookups[0]}/api/v1/record?format=payload&url=$q") || die "the record of $first was not served"
case "$body" in *"BODY-o0-p-1<"*) echo "record of $first: ${#body} bytes, its own body" ;; *) die "the record of $first is not its body" ;; esac
if grep -rl --include='*.warc.gz' . "$work/lookup-1" "$work/lookup-2" 2>/dev/null | grep -q .; then
	die "a lookup node keeps a record file"
fi
echo "lookup views: $(du -sh "$work/lookup-1/mirror" | cut -f1) and $(du -sh "$work/lookup-2/mirror" | cut -f1); no record kept"

echo
echo "run.sh: scale-out test passed"
