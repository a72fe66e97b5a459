#!/usr/bin/env bash
# install.sh: installs axe-core, at the version package-lock.json pins, the way
# test/replay/install.sh installs the replay engines (a cache directory named for the pins, built
# aside and renamed into place, npm ci without install scripts), and prints that directory: give
# it to the lookup tests as ARCHIVECTL_AXE_DIR (they read node_modules/axe-core/axe.min.js).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec bash "$here/../replay/install.sh" "$here"
