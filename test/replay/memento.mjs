// memento.mjs: drives archivectl's Memento endpoints (RFC 7089) with Memento client code from
// npm, as published:
//
//   node memento.mjs negotiate URL DATETIME   Comunica's ActorHttpMemento (@comunica/actor-http-memento)
//   node memento.mjs timemap URL              the TimeMap parser of wayback-machine (lib/timemap.js)
//
// negotiate asks for URL with the actor's datetime set to DATETIME (an RFC 1123 date): the actor
// sends Accept-Datetime, and when the answer is not a memento (no Memento-Datetime) follows its
// Link rel="timegate" with the same Accept-Datetime (RFC 7089 section 4.2); redirects are followed
// as fetch follows them. Its HTTP requests go through Node's fetch (the mediator of the actor's
// bus: Comunica's HTTP bus hands each request to whichever actor performs it). It prints one JSON
// object: the final status and URL, Memento-Datetime, Link, and whether a TimeGate was followed.
//
// timemap fetches URL (a link-format TimeMap) and prints what the parser reads: original,
// timegate, first, last and the mementos with their datetimes (ISO 8601).
//
// The exit status is 2 for bad arguments and 1 when a request fails.

import { Readable } from "node:stream";

import { load } from "./engines.mjs";

const usage = "usage: node memento.mjs negotiate URL DATETIME | timemap URL";

const [mode, url, datetime] = process.argv.slice(2);
try {
  if (mode === "negotiate" && url && datetime) {
    console.log(JSON.stringify(await negotiate(url, new Date(datetime))));
  } else if (mode === "timemap" && url) {
    console.log(JSON.stringify(await timemap(url)));
  } else {
    console.error(usage);
    process.exit(2);
  }
} catch (e) {
  console.error(`memento.mjs: ${e.stack || e}`);
  process.exit(1);
}

async function negotiate(input, at) {
  if (isNaN(at)) throw new Error(`not a date: ${datetime}`);
  const { ActorHttpMemento, KEY_CONTEXT_DATETIME } = (await load("@comunica/actor-http-memento")).default;
  const { ActionContext, Bus } = (await load("@comunica/core")).default;
  const requests = [];
  const mediatorHttp = {
    mediate: async (action) => {
      requests.push({ url: String(action.input), accept_datetime: new Headers(action.init?.headers ?? {}).get("accept-datetime") });
      return fetch(action.input, action.init);
    },
  };
  const actor = new ActorHttpMemento({ name: "actor-http-memento", bus: new Bus({ name: "bus-http" }), mediatorHttp });
  const action = { input, context: ActionContext({ [KEY_CONTEXT_DATETIME]: at }) };
  await actor.test(action); // refuses an action without a datetime
  const res = await actor.run(action);
  const body = await res.text();
  return {
    status: res.status, url: res.url, memento_datetime: res.headers.get("memento-datetime"),
    link: res.headers.get("link"), requests, length: body.length,
  };
}

async function timemap(input) {
  const { parseTimemap } = (await load("wayback-machine/lib/timemap.js")).default;
  const res = await fetch(input);
  if (!res.ok) throw new Error(`${input}: ${res.status}`);
  const text = await res.text();
  const tm = await new Promise((resolve, reject) =>
    parseTimemap(Readable.from([text.replace(/\n$/, "")]), (err, r) => (err ? reject(err) : resolve(r))));
  const iso = (m) => m && { url: m.url, time: m.time.toISOString() };
  return { original: tm.original, timegate: tm.timegate, first: iso(tm.first), last: iso(tm.last), mementos: tm.mementos.map(iso) };
}
