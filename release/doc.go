// Package release makes sealed captures public: due records are byte-copied into public
// shards with CDXJ indexes, the rest get tombstones. It never imports the crawler.
//
// A pass runs as stages — due scan, plan, copy, tombstones, journaled commit, publish — each a
// function that takes what the one before returned and returns its own result
// (docs/architecture.md#release-pass).
//
// The public side of a data directory, the only thing the lookup service reads, is laid out as
// package public describes; that package owns its formats (CDXJ, state.json, the audit log's
// entries, the tombstone document), and this one writes them.
//
// Exactly once: a pass writes its files under DATA/release-tmp/ and fsyncs them, then
// records the whole commit (files, index marks, log lines, state) in DATA/release-journal.json,
// then renames the files into public/, appends the log, marks the index, replaces state.json
// and deletes the journal. A pass interrupted before the journal is durable is rolled back
// (the temp files are deleted); one interrupted after it is rolled forward by the next pass.
// Passes are serialised by a lock on DATA/release.lock.
package release
