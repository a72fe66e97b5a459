#!/usr/bin/env bash
# install.sh: builds the pinned SeaweedFS server (the `weed` binary) that the object-storage tests
# start on loopback, into a cache directory outside the repository, and prints the binary's path:
# give it to the tests as ARCHIVECTL_WEED.
#
# `go install` refuses the module (its go.mod has replace directives), so this downloads the
# pinned module version with `go mod download`, copies its source out of the read-only module
# cache and runs `go build ./weed` there. The build takes 8-15 minutes on 2 cores and gives a
# binary of about 230 MB. It lands under a directory named for the version, built aside and
# renamed into place when complete: a failed or interrupted build leaves nothing that looks
# installed, and a working binary already there is reused at once. Only the Go module proxy is needed.
#
# Cache root: $ARCHIVECTL_WEED_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/archivectl/seaweedfs.
# Standard output is the binary's path alone; progress and errors go to standard error.
set -euo pipefail

# The pinned SeaweedFS: module version and the version its binary reports.
module=github.com/seaweedfs/seaweedfs
version=v0.0.0-20261109003541-7506e5f91cd6
reports="30GB 4.53"

log() { printf 'install.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

command -v go >/dev/null 2>&1 || die "go is not installed (Go 1.26 or later is needed)"

root=${ARCHIVECTL_WEED_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/archivectl/seaweedfs}
dir="$root/$version"
bin="$dir/weed"

works() { "$1" version 2>/dev/null | grep -qF "version $reports "; }

if [ -x "$bin" ] && works "$bin"; then
	log "reusing $bin"
	echo "$bin"
	exit 0
fi

mkdir -p "$root"
tmp=$(mktemp -d "$root/.tmp-XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
start=$SECONDS

log "downloading $module@$version"
# Outside any module, so that the repository's go.mod plays no part.
src=$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$module@$version" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$src" ] && [ -d "$src" ] || die "go mod download of $module@$version failed"

log "building $src/weed ($(go version | cut -d' ' -f3)); this takes several minutes"
cp -r "$src" "$tmp/src"
chmod -R u+w "$tmp/src"
mkdir -p "$tmp/out"
if ! (cd "$tmp/src" && GOWORK=off GOFLAGS=-buildvcs=false go build -o "$tmp/out/weed" ./weed >&2); then
	die "go build of $module@$version failed: SeaweedFS is not installed"
fi
works "$tmp/out/weed" || die "the built weed does not report version $reports"

mkdir -p "$dir"
# A rename within one file system: the binary appears complete or not at all.
mv -f "$tmp/out/weed" "$bin" || die "cannot move the build to $bin"
log "built in $((SECONDS - start))s: $(du -h "$bin" | cut -f1)"
echo "$bin"
