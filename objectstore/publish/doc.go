// Package publish copies a node's public side into a shared object store (objectstore.Store:
// an S3 bucket, or a directory) exactly once, as generations that become visible all at once.
//
// Object stores have no rename, so a generation is committed by one object written last: its
// manifest. Every file of public/ is uploaded first under a final name that is never reused
// (public files are immutable once a release commit has renamed them into place, so a file's
// name is its content), then the manifest that lists them all is written with a conditional
// create. Readers (the lookup's mirror) look only at manifests, so a pass killed anywhere, or a
// store failing mid-upload, leaves the previous generation visible; the next Publish uploads
// again what is missing (an object already there with the same SHA-256 counts as uploaded) and
// commits. Objects that no kept manifest lists (what a failed Publish left, index segments
// merged away, old per-generation copies) are deleted by the next successful Publish.
//
// # Layout of the store
//
//	generations/NODE/<generation, 20 digits>.json  a node's commit points; the last Keep are kept
//	nodes/NODE/shards/…, nodes/NODE/tombstones/…    the public WARC and CDXJ files, as in public/
//	nodes/NODE/index/…                              the public index's immutable files
//	nodes/NODE/g/<generation>/PATH                   a generation's copy of a file public/ rewrites
//	                                                 in place (the index manifest)
//	nodes/NODE/log/<generation>-<offset>.jsonl       the release log, in parts, each the lines of
//	                                                 one generation from its byte offset
//
// NODE is the node's name: each crawl node has its own sealed repository and release passes,
// and publishes under its own name, so no two nodes' objects can collide. A data directory
// holds a random id (DATA/publish-id) that its manifests carry: a second data directory
// publishing under a name already taken is refused, never mixed in.
package publish
