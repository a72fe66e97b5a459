// records.mjs: reads every record of WARC files with warcio.js's WARCParser and checks their
// digests, printing one JSON line per record:
//
//   node records.mjs FILE.warc.gz...
//
// {"file","offset","length","type","id","content_length","block":true|false,"payload":true|false|null}
//
// file is the path as given, offset and length the record's gzip member as the parser delimits it.
// "block" says whether WARC-Block-Digest is the digest of the record's block, read raw (the parser
// told not to parse HTTP); "payload" whether WARC-Payload-Digest is the digest of the payload as
// warcio.js itself splits an HTTP message (its parser, reading the raw payload after the HTTP head),
// or of the whole block for a record that is not an HTTP message but carries one; null for a
// revisit, whose payload digest is its original's, and for a record without a payload that carries
// none (warcinfo, metadata: WARC 1.1 §5.9). Each file is read twice, once per mode, and the two readings must see
// the same records. Digests are sha256 (base16) or sha1 (base32), as the label says. The exit status
// is 2 for bad arguments and 1 when a file cannot be read or parsed.

import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";

import { load } from "./engines.mjs";

const files = process.argv.slice(2);
if (files.length === 0) fail(2, "usage: node records.mjs FILE.warc.gz...");

let WARCParser;
try {
  ({ WARCParser } = await load("warcio"));
} catch (e) {
  fail(1, e.message);
}

for (const file of files) {
  try {
    const raw = await readAll(file, false);
    const parsed = await readAll(file, true);
    if (raw.length !== parsed.length) {
      fail(1, `${file}: ${raw.length} records read raw, ${parsed.length} with HTTP parsed`);
    }
    raw.forEach((r, i) => {
      const p = parsed[i];
      if (p.offset !== r.offset || p.id !== r.id) fail(1, `${file}: record ${i} differs between the two readings`);
      const http = r.type === "response" || r.type === "request";
      let payload = null;
      if (r.type !== "revisit" && (http || r.payloadDigest)) {
        payload = check(r.payloadDigest, http ? p.payload : r.block);
      }
      process.stdout.write(JSON.stringify({
        file, offset: r.offset, length: r.length, type: r.type, id: r.id, content_length: r.contentLength,
        block: check(r.blockDigest, r.block) && r.block.length === r.contentLength, payload,
      }) + "\n");
    });
  } catch (e) {
    fail(1, `${file}: ${e.message}`);
  }
}

// readAll reads every record of file: its location, headers and raw block (parseHttp false), or
// its payload after the HTTP head as warcio.js splits it (parseHttp true).
async function readAll(file, parseHttp) {
  const parser = new WARCParser(createReadStream(file, { highWaterMark: 128 * 1024 }), { parseHttp });
  const out = [];
  for await (const record of parser) {
    const body = await record.readFully(false);
    out.push({
      offset: parser.offset, type: record.warcType, id: record.warcHeader("WARC-Record-ID"),
      contentLength: record.warcContentLength, blockDigest: record.warcBlockDigest, payloadDigest: record.warcPayloadDigest,
      block: parseHttp ? null : body, payload: parseHttp ? body : null,
    });
    // The record's length is known once the parser has moved past it: set when the next starts.
    if (out.length > 1) out[out.length - 2].length = parser.offset - out[out.length - 2].offset;
  }
  if (out.length > 0) out[out.length - 1].length = statSync(file).size - out[out.length - 1].offset;
  return out;
}

// check says whether label (e.g. "sha256:ab…" or "sha1:AB…") is the digest of bytes.
function check(label, bytes) {
  if (!label) return false;
  const i = label.indexOf(":");
  const alg = label.slice(0, i).toLowerCase();
  if (alg !== "sha256" && alg !== "sha1") return false;
  const sum = createHash(alg).update(bytes).digest();
  return label.slice(i + 1) === (alg === "sha1" ? base32(sum) : sum.toString("hex"));
}

// base32 is RFC 4648 base32 with padding, as WARC sha1 digests are written.
function base32(buf) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0, value = 0, out = "";
  for (const b of buf) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += "=";
  return out;
}

// fail ends the process with code after a message on standard error.
function fail(code, message) {
  console.error(`records.mjs: ${message}`);
  process.exit(code);
}
