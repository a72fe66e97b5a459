// replay.mjs: replays URLs out of a WACZ file with the real wabac.js engine (the one inside
// ReplayWeb.page), run in Node with fake-indexeddb standing in for the browser's IndexedDB.
//
//   node replay.mjs [--mod id_|mp_] [--verify] FILE.wacz [LIST|-]
//
// LIST (a file, or standard input when absent or "-") holds one request a line: "URL" or
// "TIMESTAMP URL" (14 digits or fewer, as in a wayback URL). The WACZ is served to the engine
// from a loopback HTTP server with range requests, as a web server would serve it to a browser,
// and loaded the way ReplayWeb.page loads a WACZ URL: an on-demand MultiWACZ collection. Each
// request then goes through the service worker's own fetch handler as
// <prefix>/w/<coll>/<TIMESTAMP><mod>/<URL>; a redirect the engine makes to the same URL at the
// capture it chose is followed, as a browser would. For each request one JSON line is printed:
//
//   {"url","requested_ts","status","content_type","length","sha256","archived","ts","date","location"}
//
// archived tells a response from the archive (status, headers and body of a capture) from one the
// engine made up (its not-found answer); ts and date are the served capture's time; length and
// sha256 are those of the body bytes served. With --mod id_ (the default) the body is the
// archived payload unchanged; mp_ asks for the page as a browser frame gets it, rewritten.
// With --verify a last line {"verify": {...}} gives the hash checks the engine made (README.md
// says which ones wabac 2.27.1 makes). The exit status is 2 for bad arguments, 1 when the engines
// are missing or the WACZ does not load, 0 otherwise, whatever the statuses replayed.

import { createHash } from "node:crypto";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { basename } from "node:path";
import { parseArgs } from "node:util";

import { load } from "./engines.mjs";

// The engine logs progress with console.log: keep standard output for the JSON lines only.
const out = (line) => process.stdout.write(line + "\n");
for (const level of ["log", "info", "debug"]) {
  console[level] = (...args) => console.error(...args);
}

const usage = "usage: node replay.mjs [--mod id_|mp_] [--verify] FILE.wacz [LIST|-]";
const coll = "archivectl";

// FrameRequest is a browser's navigation of a frame; Node's Request is always a cors fetch, which
// the engine answers as it would a script's (no HTML rewriting).
class FrameRequest extends Request {
  get mode() {
    return "navigate";
  }
  get destination() {
    return "iframe";
  }
}

await main();

async function main() {
  let args;
  try {
    args = parseArgs({
      allowPositionals: true,
      options: {
        mod: { type: "string", default: "id_" },
        verify: { type: "boolean", default: false },
      },
    });
  } catch (e) {
    fail(2, `${e.message}\n${usage}`);
  }
  const [waczPath, listPath = "-"] = args.positionals;
  if (!waczPath || args.positionals.length > 2 || !/^[a-z]+_$/.test(args.values.mod)) {
    fail(2, usage);
  }
  const requests = parseList(readFileSync(listPath === "-" ? 0 : listPath, "utf8"));

  const server = await serveFile(waczPath);
  const origin = `http://127.0.0.1:${server.address().port}`;

  // useHashCheck=1 is the worker's URL parameter that makes the engine hash what it reads
  // from the zip against the digests the package gives.
  installWorkerGlobals("http://replay.invalid/", "?useHashCheck=1");
  let SWReplay;
  try {
    await load("fake-indexeddb/auto");
    ({ SWReplay } = await load("@webrecorder/wabac/swlib"));
  } catch (e) {
    fail(1, e.message);
  }

  const sw = new SWReplay();
  await sw.collections.inited;

  let loadError = "";
  const added = await sw.collections.addCollection(
    { name: coll, file: { sourceUrl: `${origin}/${encodeURIComponent(basename(waczPath))}` } },
    (_percent, error) => {
      if (error) loadError = error;
    },
  );
  if (!loadError) {
    loadError = added ? await loadProblem(sw.collections.colls[coll].store) : "no collection";
  }
  if (loadError) fail(1, `${waczPath} did not load: ${loadError}`);

  const prefix = `${sw.replayPrefix}${coll}/`;
  for (const { ts, url } of requests) {
    out(JSON.stringify(await replay(sw, prefix, ts, args.values.mod, url)));
  }
  if (args.values.verify) {
    out(JSON.stringify({ verify: await verification(sw.collections.colls[coll].store) }));
  }
  server.close();
  // The engine leaves timers behind (cleanup runs) that would keep Node alive: the work is done.
  process.exit(0);
}

// fail ends the process with code after a message on standard error.
function fail(code, message) {
  console.error(`replay.mjs: ${message}`);
  process.exit(code);
}

// replay asks the engine for url at ts, following the engine's own redirects to the capture it
// picked (same URL, a page id and timestamp added), and describes what it served.
async function replay(sw, prefix, ts, mod, url) {
  let target = `${prefix}${ts}${mod}/${url}`;
  for (let hop = 0; ; hop++) {
    const resp = await fetchFromWorker(sw, target, mod);
    const location = resp.headers.get("location");
    if (hop < 5 && location && isEngineRedirect(prefix, location, url)) {
      target = new URL(location, target).href;
      continue;
    }
    const body = Buffer.from(await resp.arrayBuffer());
    const date = resp.date instanceof Date ? resp.date : null;
    return {
      url,
      requested_ts: ts,
      status: resp.status,
      content_type: resp.headers.get("content-type"),
      length: body.length,
      sha256: createHash("sha256").update(body).digest("hex"),
      archived: date !== null,
      ts: date ? date.toISOString().replace(/[-:TZ]/g, "").slice(0, 14) : "",
      date: date ? date.toISOString() : "",
      location: location ?? "",
    };
  }
}

// isEngineRedirect tells the engine's move to a chosen capture of url (the replay prefix, then
// ":page/" and a timestamp, then url again) from an archived redirect, which goes elsewhere.
function isEngineRedirect(prefix, location, url) {
  if (!location.startsWith(prefix)) return false;
  const m = /^(?::[\w-]+\/)?\d*(?:[a-z]+_)?\/(.+)$/.exec(location.slice(prefix.length));
  return m !== null && m[1] === url;
}

// fetchFromWorker dispatches a request to the service worker's fetch handler: a plain fetch for
// id_ (a tool asking for the raw capture), a frame navigation for the other modifiers.
async function fetchFromWorker(sw, href, mod) {
  const request = mod === "id_" ? new Request(href) : new FrameRequest(href);
  const waits = [];
  const event = { request, clientId: "", waitUntil: (p) => waits.push(p), respondWith() {} };
  const resp = await sw.handleFetch(event);
  await Promise.allSettled(waits);
  return resp;
}

// loadProblem tells why a collection the engine accepted holds no replayable WACZ, or "": the
// engine logs a bad zip or a missing datapackage.json and goes on with an empty archive.
async function loadProblem(store) {
  const files = Object.values(store.waczfiles ?? {});
  if (files.length === 0) return "no WACZ file in the collection";
  for (const file of files) {
    if (!file.containsFile("datapackage.json")) return `${file.waczname}: no datapackage.json in the zip`;
    let indexType;
    try {
      ({ indexType } = await store.loadIndex(file.waczname));
    } catch (e) {
      return `${file.waczname}: index: ${e.message}`;
    }
    if (!indexType) return `${file.waczname}: no index (indexes/*.cdx, *.cdxj or *.idx)`;
  }
  return "";
}

// verification lists the hash checks the engine made while loading and replaying: each
// {id, expected, matched}, with counts. Left out: the signature (an unsigned package is no fault;
// signed tells whether one was there and held), facts with nothing to match (matched null), and
// checks with no expected hash, which wabac 2.27.1 records for a "recordDigest" index field with
// its arguments out of order, so that they can never match.
async function verification(store) {
  const all = await store.db.getAll("verification");
  const checks = all
    .filter((v) => typeof v.matched === "boolean" && v.id !== "signature" && v.expected !== "")
    .map(({ id, expected, matched }) => ({ id, expected, matched }));
  const signature = all.find((v) => v.id === "signature");
  return {
    checks,
    valid: checks.filter((c) => c.matched).length,
    invalid: checks.filter((c) => !c.matched).length,
    signed: signature?.matched === true,
  };
}

// parseList reads "URL" or "TIMESTAMP URL" lines; blank lines and lines starting with # are skipped.
function parseList(text) {
  const list = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^(?:(\d{1,14})\s+)?(\S+)$/.exec(line);
    if (!m) fail(2, `bad request line ${JSON.stringify(line)}\n${usage}`);
    list.push({ ts: m[1] ?? "", url: m[2] });
  }
  return list;
}

// serveFile serves one file on a loopback port with HEAD and single-range GET, the way the
// engine fetches a remote WACZ: the central directory first, then each record by its range.
async function serveFile(path) {
  let size;
  try {
    size = statSync(path).size;
  } catch (e) {
    fail(1, e.message);
  }
  const srv = createServer((req, res) => {
    const headers = { "Accept-Ranges": "bytes", "Content-Type": "application/wacz" };
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    let start = 0;
    let end = size - 1;
    let status = 200;
    if (range) {
      if (range[1] === "") {
        start = Math.max(0, size - Number(range[2]));
      } else {
        start = Number(range[1]);
        if (range[2] !== "") end = Math.min(end, Number(range[2]));
      }
      if (start > end || start >= size) {
        res.writeHead(416, { "Content-Range": `bytes */${size}` }).end();
        return;
      }
      status = 206;
      headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
    }
    headers["Content-Length"] = String(end - start + 1);
    res.writeHead(status, headers);
    if (req.method === "HEAD") {
      res.end();
      return;
    }
    createReadStream(path, { start, end }).pipe(res);
  });
  await new Promise((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return srv;
}

// installWorkerGlobals gives Node the parts of a ServiceWorkerGlobalScope the engine uses.
function installWorkerGlobals(scopeURL, search) {
  const listeners = {};
  const g = globalThis;
  g.self = g;
  Object.defineProperty(g, "location", { value: new URL(scopeURL + "sw.js" + search), configurable: true });
  g.registration = { scope: scopeURL };
  g.addEventListener = (type, fn) => (listeners[type] ??= []).push(fn);
  g.skipWaiting = async () => {};
  g.clients = { claim: async () => {}, matchAll: async () => [] };
  g.postMessage = () => {};
}
