// Package store is the sealed repository: WARC 1.1 files in dataDir/sealed (mode 0700) and the
// release-ordered bbolt index dataDir/index.db (package store/index). It writes captures durably
// (Seal), reads records back by location (ReadRecord, ReadAt, MemberReader, ScanFile), recovers
// from a killed writer (Open), and checks or rebuilds the index from the WARC files alone
// (Verify, Reindex). It also
// holds the WARC record conventions the releaser shares: digests (Digest) and record ids
// (DerivedRecordID); records written without gowarc's builder are internal/warcrecord's.
//
// Files. Records are gzip members, one per record, so any record's byte range can be copied
// verbatim into another file. A file is named prefix-timestamp-serial-host.warc.gz (IIPC style,
// timestamp yyyyMMddHHmmssSSS UTC), is called NAME.open while written, starts with a warcinfo
// record (software, format, robots policy, operator, contact) and is rotated before a capture
// that would take it past MaxFileSize; a capture's records never span two files. Records carry
// no WARC-Warcinfo-ID: they are copied into public shards, where that reference would dangle.
//
// Records per capture, in this order: request (WARC-Concurrent-To the response), response or
// revisit, metadata (Content-Type application/warc-fields, WARC-Concurrent-To the response; the
// named fields of metadata.go, or in archives sealed before a JSON document, read too). A page's
// resource derived in the browser (its rendered DOM, a screenshot: Capture.Resource) is a resource
// record (target URI urn:dom: or urn:view: and the page's URL, WARC-Concurrent-To the page's
// response) and its metadata record, without request. The capture id is the response's WARC-Record-ID as written,
// "<urn:uuid:…>". Every record has WARC-Block-Digest (sha256 in lowercase base16 by default, or
// sha1 in base32); request, response and revisit records have WARC-Payload-Digest too: the payload
// is the bytes after the HTTP header block exactly as received — chunked framing and
// Content-Encoding are not undone, as gowarc and warcio compute it. Warcinfo and metadata records
// have no payload, so no payload digest (WARC 1.1 §5.9); records sealed before carry one equal to
// the block digest, which readers still check.
//
// Revisits. A capture whose (SURT, payload digest) was captured before is written as a revisit
// (profile http://netpreserve.org/warc/1.1/revisit/identical-payload-digest, WARC-Refers-To the
// first capture, fresh record id); its first seen is the original's (docs/rules.md#d7) and its release
// time is never earlier than the original's. A truncated capture is never a revisit.
//
// Durability. Seal writes a batch's members, syncs the WARC file, then commits the batch's index
// entries in one bbolt transaction, so the index never points at bytes that are not on disk; the
// index also records how far each file holds committed records. Open cuts each .open file left by
// a killed writer back to that point (dropping, and reporting, any entry that points past valid
// data) and renames it to its final name.
//
// Index. The bbolt index dataDir/index.db is package store/index; Seal indexes each batch through
// one of its transactions (index.Tx), Open's recovery and Verify read it, Reindex builds a new one
// (index.Build) from the WARC files. The index's types are known here by their names in store
// (Entry, Location, Mark, Index, …), as the release pass and the commands use them.
//
// Locking. A Store holds dataDir/sealed.lock for its lifetime, so only one writer (or Reindex)
// works on a repository; the index locks itself per operation (store/index).
package store
