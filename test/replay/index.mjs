// index.mjs: indexes WARC files with warcio.js's own CDX indexer (the library's CDXIndexer, as
// its `warcio cdx-index` command runs it) and prints its CDXJ lines:
//
//   node index.mjs [--root DIR] FILE.warc.gz...
//
// Each line is "<urlkey> <timestamp> <json>", the JSON holding url, mime, status, digest, length,
// offset and filename, in the order and form warcio writes them (offset, length and status as
// strings; digest without its "sha256:" label). filename is the file's base name, as the
// command gives it, or with --root its path relative to DIR (--root public/ gives
// "shards/<name>"). The exit status is 2 for bad arguments and 1 when a file cannot be indexed.

import { createReadStream, statSync } from "node:fs";
import { basename, relative } from "node:path";
import { parseArgs } from "node:util";

import { load } from "./engines.mjs";

const usage = "usage: node index.mjs [--root DIR] FILE.warc.gz...";

await main();

async function main() {
  let args;
  try {
    args = parseArgs({ allowPositionals: true, options: { root: { type: "string" } } });
  } catch (e) {
    fail(2, `${e.message}\n${usage}`);
  }
  if (args.positionals.length === 0) fail(2, usage);

  const files = [];
  for (const path of args.positionals) {
    try {
      if (!statSync(path).isFile()) fail(1, `${path} is not a file`);
    } catch (e) {
      fail(1, e.message);
    }
    const root = args.values.root;
    const filename = root === undefined ? basename(path) : relative(root, path);
    files.push({ filename, reader: createReadStream(path, { highWaterMark: 128 * 1024 }) });
  }

  let CDXIndexer;
  try {
    ({ CDXIndexer } = await load("warcio"));
  } catch (e) {
    fail(1, e.message);
  }
  try {
    await new CDXIndexer({ format: "cdxj" }).writeAll(files, process.stdout);
  } catch (e) {
    fail(1, `indexing failed: ${e.message}`);
  }
}

// fail ends the process with code after a message on standard error.
function fail(code, message) {
  console.error(`index.mjs: ${message}`);
  process.exit(code);
}
