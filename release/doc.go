// Package release makes sealed captures public: due records are byte-copied into public
// shards with CDXJ indexes, the rest get tombstones. It never imports the crawler.
//
// The public side of a data directory, the only thing the lookup service reads:
//
//	public/                                   world-readable (dirs 0755, files 0644)
//	  shards/PUBLIC-<YYYYMMDDhhmmss>-<serial>.warc.gz   a fresh warcinfo member, then the request,
//	                                          response (or revisit) and metadata members of each
//	                                          released capture, byte for byte as sealed
//	  shards/<same name>.cdxj                 one line per released capture (its response record)
//	  tombstones/TOMBSTONES-<YYYYMMDDhhmmss>-<serial>.warc.gz   one WARC metadata record per
//	                                          embargoed capture: application/json facts, never a body byte
//	  tombstones/<same name>.cdxj             one "state":"embargoed" line per tombstone
//	  release-log.jsonl                       the append-only audit log: what became public when
//	  state.json                              {"generation", "last_pass", "next_release", ...},
//	                                          replaced atomically at the end of every commit
//
// The timestamp in a file name is the `now` of the pass that wrote it; the 5-digit serial
// grows across passes, so names never repeat. Every pass writes new files: a public file is
// never appended to or rewritten, except release-log.jsonl, which only grows.
//
// Exactly once: a pass writes its files under DATA/release-tmp/ and fsyncs them, then
// records the whole commit (files, index marks, log lines, state) in DATA/release-journal.json,
// then renames the files into public/, appends the log, marks the index, replaces state.json
// and deletes the journal. A pass interrupted before the journal is durable is rolled back
// (the temp files are deleted); one interrupted after it is rolled forward by the next pass.
// Passes are serialised by a lock on DATA/release.lock.
package release
