"""Reads an archivectl data directory the way the README's pywb setup does, with pywb's own index
and access-control code (a pywb source tree, PYWB_SRC), and checks what pywb would answer:

- the collection's index (index_group: the released export and public/embargoed/) lists each
  capture once, each released capture from the export and each capture under embargo from its
  tombstone line;
- pywb's AccessChecker over acl_paths: public/access/ blocks (451) exactly the URLs with a capture
  under embargo;
- the 451 page, configs/pywb/templates/error.html rendered by jinja2 as pywb renders error.html,
  states the release date: its script is run by node over pywb's own CDX API answer (the index
  lines as pywb's CDXObject.to_json writes them).

Only pywb's modules that need nothing beyond the standard library, six, werkzeug, requests,
dateutil and jinja2 run; what pywb imports and this check never calls (gevent, redis, warcio, the
surt package) is stubbed: the URL keys come from the index lines (archivectl writes Python surt's
keys; internal/surt tests that).

    python3 check.py PYWB_SRC DATA_DIR RELEASED_CDXJ TEMPLATE_DIR

It prints one JSON object of figures and exits 1 on the first disagreement.
"""
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import types
from datetime import datetime, timezone


def stub(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


KEYS = {}  # URL → its SURT key, from the index lines


def surt_stub(url, **kw):
    return KEYS.get(url, url)


def ts_to_dt(ts, tz_aware=False):
    ts = (ts + "10000101000000")[:14] if len(ts) < 14 else ts[:14]
    dt = datetime.strptime(ts, "%Y%m%d%H%M%S")
    return dt.replace(tzinfo=timezone.utc) if tz_aware else dt


def install_stubs():
    class Pool:
        def __init__(self, *a, **k):
            pass

        def imap_unordered(self, fn, it):
            return map(fn, it)

    stub("gevent", Timeout=Exception, sleep=lambda *a: None, spawn=None)
    stub("gevent.pool", Pool=Pool)
    stub("redis", StrictRedis=object, from_url=None)
    stub("surt", surt=surt_stub)
    stub("warcio")
    stub("warcio.timeutils", PAD_14_DOWN="10000101000000", PAD_14_UP="29991231235959",
         timestamp_to_datetime=ts_to_dt, http_date_to_timestamp=None, pad_timestamp=lambda t, p: (t + p[len(t):])[:14],
         timestamp_now=lambda: datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S"), timestamp_to_http_date=None,
         timestamp_to_sec=lambda t: ts_to_dt(t).replace(tzinfo=timezone.utc).timestamp(), iso_date_to_timestamp=None,
         datetime_to_timestamp=lambda d: d.strftime("%Y%m%d%H%M%S"))
    stub("warcio.utils", to_native_str=lambda s, enc="utf-8": s.decode(enc) if isinstance(s, bytes) else s, BUFF_SIZE=16384)
    stub("warcio.limitreader", LimitReader=object)
    stub("warcio.bufferedreaders", gzip_decompressor=None, DecompressingBufferedReader=object)


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    pywb_src, data, released, templates = sys.argv[1:5]
    install_stubs()
    sys.path.insert(0, pywb_src)
    from pywb.warcserver.access_checker import AccessChecker
    from pywb.warcserver.index.aggregator import SimpleAggregator, DirectoryIndexSource
    from pywb.warcserver.index.indexsource import FileIndexSource

    pub = os.path.join(data, "public")
    # Every capture archivectl made public, from the CDXJ beside the WARC files: id → line.
    captures = {}
    for sub in ("shards", "tombstones"):
        d = os.path.join(pub, sub)
        for name in sorted(os.listdir(d)):
            if name.endswith(".cdxj"):
                for line in open(os.path.join(d, name), encoding="utf-8"):
                    key, ts, js = line.split(" ", 2)
                    c = json.loads(js)
                    KEYS[c["url"]] = key
                    old = captures.get(c["id"])
                    if old is None or c["state"] == "released":
                        captures[c["id"]] = c
    embargoed_urls = {c["url"] for c in captures.values() if c["state"] != "released"}

    # index_group: {released: the export, embargoed: public/embargoed/} (pywb's warcserver builds
    # one aggregator over the group's sources; SimpleAggregator is its sequential form).
    index = SimpleAggregator({
        "released": FileIndexSource(released),
        "embargoed": DirectoryIndexSource(os.path.join(pub, "embargoed") + "/"),
    })
    acl = AccessChecker([os.path.join(pub, "access") + "/"])
    listed, blocked_ok, lines_total, blocked = 0, 0, 0, 0
    cdx_json = {}
    quiet = contextlib.redirect_stdout(io.StringIO())  # pywb's directory sources print as they cache
    quiet.__enter__()
    for url in sorted({c["url"] for c in captures.values()}):
        res, errs = index({"url": url, "matchType": "exact", "key": KEYS[url].encode(), "end_key": (KEYS[url] + "!").encode()})
        if errs:
            fail("%s: index errors %s" % (url, errs))
        rows = list(acl.wrap_iter(res, None))
        lines_total += len(rows)
        seen = {}
        for cdx in rows:
            k = (cdx["timestamp"], cdx.get("url"))
            seen[k] = seen.get(k, 0) + 1
        want = sorted({(c["time"][:19].replace("-", "").replace(":", "").replace("T", ""), url) for c in captures.values() if c["url"] == url})
        got = sorted(seen)
        if got != want or any(n != 1 for n in seen.values()):
            fail("%s: pywb's index lists %s, want each of %s once" % (url, seen, want))
        listed += len(got)
        access = {cdx["access"] for cdx in rows}
        if (url in embargoed_urls) != (access == {"block"}):
            fail("%s: access %s, embargoed %s" % (url, access, url in embargoed_urls))
        if url in embargoed_urls:
            blocked += 1
            cdx_json[url] = "".join(cdx.to_json() for cdx in rows)
    quiet.__exit__(None, None, None)
    # The 451 page of each blocked URL: rendered as pywb renders error.html, its script run over
    # pywb's CDX API answer.
    import jinja2
    loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(templates),
                                  jinja2.FileSystemLoader(os.path.join(pywb_src, "pywb", "templates"))])
    env = jinja2.Environment(loader=loader, extensions=["jinja2.ext.i18n"])
    env.install_null_translations()
    env.globals.update(_=lambda s: s, _Q=lambda s: s, locales=[], default_locale="en",
                       switch_locale=lambda *a: "", get_locale_prefixes=lambda *a: {})
    tmpl = env.get_template("error.html")
    dates = 0
    for url, answer in cdx_json.items():
        html = tmpl.render(err_status=451, err_msg=url, err_details={"args": {"coll": "archive", "type": "replay"}, "error": '{"access": "block", "access_status": 451}'},
                           env={"pywb.app_prefix": "", "pywb.static_prefix": "/static"}, static_prefix="/static")
        m = re.search(r'data-cdx="([^"]+)"', html)
        s = re.search(r"<script>(.*?)</script>", html, re.S)
        if not m or not s:
            fail("%s: the 451 page has no release-date script" % url)
        want = max(c["release_at"] for c in captures.values() if c["url"] == url and c["state"] != "released")
        with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False) as f:
            f.write("""
var el = {attrs: {"data-cdx": %s}, textContent: "",
  getAttribute: function (k) { return this.attrs[k]; }, setAttribute: function (k, v) { this.attrs[k] = v; }};
var document = {getElementById: function () { return el; }};
var fetch = function (u) { if (u !== el.attrs["data-cdx"]) throw new Error(u); return Promise.resolve({text: function () { return %s; }}); };
%s
setTimeout(function () { console.log(JSON.stringify({text: el.textContent, release_at: el.attrs["data-release-at"]})); }, 10);
""" % (json.dumps(m.group(1).replace("&amp;", "&")), json.dumps(answer), s.group(1)))
        out = json.loads(subprocess.run(["node", f.name], capture_output=True, text=True, check=True).stdout)
        os.unlink(f.name)
        shown = datetime.fromisoformat(want.replace("Z", "+00:00")).astimezone(timezone.utc).strftime("%d %b %Y %H:%M:%S")
        if out["release_at"] != want or shown not in out["text"]:
            fail("%s: the 451 page says %r (%s), want the release date %s" % (url, out["text"], out["release_at"], want))
        dates += 1
    print(json.dumps({"captures": len(captures), "listed_once": listed, "index_lines": lines_total,
                      "urls_blocked_451": blocked, "release_dates_shown": dates}))


if __name__ == "__main__":
    main()
