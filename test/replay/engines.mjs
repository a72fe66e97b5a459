// engines.mjs: finds the pinned npm packages that install.sh put in a directory outside the
// repository, and imports them from there (bare imports would only look beside this file).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

// nodeDir holds node_modules: $ARCHIVECTL_REPLAY_NODE_DIR, the path install.sh prints, or else
// this directory (after an `npm ci` run here by hand).
export const nodeDir = process.env.ARCHIVECTL_REPLAY_NODE_DIR || here;

const require = createRequire(join(nodeDir, "package.json"));
const pinned = JSON.parse(readFileSync(join(here, "package.json"), "utf8")).dependencies;

// load imports a package (or a subpath such as "@webrecorder/wabac/swlib") from nodeDir after
// checking that the installed version is the one package.json pins.
export async function load(spec) {
  const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
  if (!(name in pinned)) {
    throw new Error(`${name} is not a pinned dependency in ${join(here, "package.json")}`);
  }
  let installed;
  try {
    installed = JSON.parse(readFileSync(join(nodeDir, "node_modules", name, "package.json"), "utf8")).version;
  } catch (e) {
    throw new Error(`${name} is not installed in ${nodeDir} (run test/replay/install.sh): ${e.message}`);
  }
  if (installed !== pinned[name]) {
    throw new Error(`${name} ${installed} in ${nodeDir}, but package.json pins ${pinned[name]} (run test/replay/install.sh)`);
  }
  return import(pathToFileURL(require.resolve(spec)).href);
}
