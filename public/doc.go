// Package public owns the format of an archive's public side, the only thing the lookup service
// reads: the names of its WARC and CDXJ files, the CDXJ line (written by the releaser, parsed by the releaser,
// the lookup and the CLI through one parser), state.json, the audit log's entries and the
// tombstone document. It uses the standard library and internal/layout (which names the directories
// and files of a data directory) only, so that the lookup links neither the store nor a WARC library.
//
// The public side of a data directory:
//
//	public/                                   world-readable (dirs 0755, files 0644)
//	  shards/PUBLIC-<YYYYMMDDhhmmss>-<serial>.warc.gz   a fresh warcinfo member, then the request,
//	                                          response (or revisit) and metadata members of each
//	                                          released capture, byte for byte as sealed
//	  shards/<same name>.cdxj                 one line per released capture (its response record)
//	  tombstones/TOMBSTONES-<YYYYMMDDhhmmss>-<serial>.warc.gz   one WARC metadata record per
//	                                          embargoed capture: its facts as application/warc-fields, never a body byte
//	  tombstones/<same name>.cdxj             one "state":"tombstone" line per tombstone
//	  embargoed/embargoed-<YYYYMMDD>.cdxj     the tombstone lines of the captures still under embargo
//	                                          that release that day (pywb's index; MergeEmbargoed)
//	  access/embargo-<YYYYMMDD>.aclj          pywb access rules (EmbargoRule): one exact-match block
//	                                          rule per URL with such a capture; both rewritten by
//	                                          the commits that change that day (see dayfile.go)
//	  release-log.jsonl                       the append-only audit log: what became public when
//	  state.json                              {"generation", "last_pass", "next_release", ...},
//	                                          replaced atomically at the end of every commit
//
// The timestamp in a file name is the `now` of the pass that wrote it; the 5-digit serial
// grows across passes, so names never repeat. Every pass writes new files: a public file is
// never appended to or rewritten, except release-log.jsonl, which only grows, and pywb's view of
// what is under embargo (embargoed/, access/), whose day files a commit replaces whole.
//
// A CDXJ line is "SURT TIMESTAMP {json}\n": the SURT key of the capture's URL, one space, the
// capture time in UTC as 14 digits, one space, and the JSON block (CDXJ) as json.Marshal writes
// it. The key ends at the first space. FormatLine refuses a key holding a space or a newline, so
// every line archivectl writes splits there (surt.Key never gives one: it percent-encodes them).
package public
