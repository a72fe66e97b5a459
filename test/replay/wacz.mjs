// wacz.mjs: packs WARC files into a WACZ with js-wacz (the Harvard Library Innovation Lab's
// WACZ creator, @harvard-lil/js-wacz, as its `js-wacz create` command runs it), so that a test
// can compare the index and pages js-wacz makes of archivectl's WARC files with archivectl's own:
//
//   node wacz.mjs OUT.wacz FILE.warc.gz...
//
// js-wacz indexes each file with warcio.js (CDXAndRecordIndexer) and detects the pages itself
// (200 text/html responses, titled from their <title>). OUT.wacz is replaced. The exit status is
// 2 for bad arguments and 1 when js-wacz fails.

import { load } from "./engines.mjs";

const usage = "usage: node wacz.mjs OUT.wacz FILE.warc.gz...";

const [output, ...input] = process.argv.slice(2);
if (!output || !output.endsWith(".wacz") || input.length === 0) fail(2, usage);

let WACZ;
try {
  ({ WACZ } = await load("@harvard-lil/js-wacz"));
} catch (e) {
  fail(1, e.message);
}
const quiet = { trace() {}, info() {}, warn: (m) => console.error(`js-wacz: ${m}`), error: (m) => console.error(`js-wacz: ${m}`) };
try {
  await new WACZ({ input, output, log: quiet }).process(false);
} catch (e) {
  fail(1, `js-wacz failed: ${e.message}`);
}

// fail ends the process with code after a message on standard error.
function fail(code, message) {
  console.error(`wacz.mjs: ${message}`);
  process.exit(code);
}
