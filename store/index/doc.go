// Package index is the bbolt index of the sealed repository, dataDir/index.db: what a release
// pass needs of every sealed capture, ordered so that it reads what is due, and only that. It
// knows bbolt and its own entries, never the WARC files the entries point into (package store
// writes and reads those).
//
// Layout. index.db (schema 2) keeps each capture's entry once, in a compact binary layout
// (entrycodec.go), under its release time and id in the bucket of its state (sealed, tombstoned,
// released); small buckets map ids, URLs and first-seen representations to those keys, and each
// WARC file to the end of its committed records. Mark applies a whole commit in one transaction,
// in key order; PrepareMark leaves it to commit after the caller's journal. A schema 1 index (JSON
// entries) is rebuilt beside index.db and renamed over it when first opened (upgrade.go). Build
// writes a fresh index from entries (the repository's Reindex); Check reads one whole and checks
// its keys against its entries (the repository's Verify).
//
// Locking. index.db is opened per operation, with a timeout: a busy index gives a
// *lockfile.BusyError (errors.Is lockfile.ErrBusy) naming the file and, on Linux, the holding
// process. A damaged file gives a *DamagedIndexError (errors.Is ErrIndexDamaged).
package index
