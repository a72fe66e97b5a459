#!/usr/bin/env bash
# install.sh: installs the replay engines that test/replay's scripts drive (wabac.js, warcio.js,
# fake-indexeddb, at the versions package-lock.json pins) into a cache directory outside the
# repository, and prints that directory: give it to the scripts as ARCHIVECTL_REPLAY_NODE_DIR.
#
# The directory is named for the hash of package.json and package-lock.json, so a change of pins
# gets a new one, and one already installed is reused at once. It is built aside and renamed into
# place when complete: a failed or interrupted install leaves nothing that looks installed, and two
# installs at once both end with the same complete directory. Only the npm registry is needed,
# through npm as configured (npm ci: exactly the lock; no install scripts run).
#
# Cache root: $ARCHIVECTL_REPLAY_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/archivectl/replay-node.
# Standard output is the directory alone; progress and errors go to standard error.
#
# An argument names another directory whose package.json and package-lock.json to install the
# same way, into the same cache root (test/a11y/install.sh installs axe-core so).
set -euo pipefail

here=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")}" && pwd)
log() { printf 'install.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

command -v node >/dev/null 2>&1 || die "node is not installed (Node.js 20 or later is needed)"
command -v npm >/dev/null 2>&1 || die "npm is not installed (it comes with Node.js)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
((node_major >= 20)) || die "node $(node --version) is too old: Node.js 20 or later is needed"

root=${ARCHIVECTL_REPLAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/archivectl/replay-node}
hash=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-16)
dir="$root/$hash"
marker="$dir/.installed"

if [ -f "$marker" ]; then
	log "reusing $dir"
	echo "$dir"
	exit 0
fi

mkdir -p "$root"
tmp=$(mktemp -d "$root/.tmp-$hash-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
cp "$here/package.json" "$here/package-lock.json" "$tmp/"

log "npm ci into $dir (node $(node --version), npm $(npm --version))"
start=$SECONDS
if ! (cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2); then
	die "npm ci failed: the replay engines are not installed"
fi
# Every pinned package must be there at its pinned version before the directory counts.
(cd "$tmp" && node -e '
	const fs = require("fs");
	const deps = JSON.parse(fs.readFileSync("package.json", "utf8")).dependencies;
	for (const [name, want] of Object.entries(deps)) {
		const got = JSON.parse(fs.readFileSync(`node_modules/${name}/package.json`, "utf8")).version;
		if (got !== want) throw new Error(`${name} ${got} installed, ${want} pinned`);
	}
	fs.writeFileSync(".installed", JSON.stringify(deps) + "\n");
') || die "installed packages do not match package.json"

if ! mv -T "$tmp" "$dir" 2>/dev/null; then
	# Another install finished first: keep its directory if it is complete.
	[ -f "$marker" ] || die "cannot move the install into $dir (if it is there without .installed, remove it)"
	log "another install completed $dir first"
fi
log "installed in $((SECONDS - start))s"
echo "$dir"
