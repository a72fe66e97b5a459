package lookup

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
)

// Shard files, read-only (docs/formats.md#shard-files): GET /shards/NAME answers a public shard
// (public/shards/PUBLIC-<ts14>-<serial>.warc.gz) as stored, with Range and If-Range
// (http.ServeContent), for replay clients that read records by the filename, offset and length
// of the public CDXJ. In a mirror's view (objectstore/mirror) a shard is shards/NODE/NAME, and so
// is its path here. Only names of that form are served: no other file of public/ (nor anything
// outside it: the public directory is an os.Root, or the mirror's view), never a file a pass is
// still writing (".open", ".tmp"). A shard is never rewritten once public, so the answer is
// immutable for caches; its bytes are those stored, not verified record by record as record
// answers are (`archivectl verify` checks shards; each record carries its WARC digests).

// shardFile is a public shard's file name.
var shardFile = regexp.MustCompile(`^PUBLIC-[0-9]{14}-[0-9]{5}\.warc\.gz$`)

// shardNode is a node's directory in a mirror's view (publish.ValidNode's form).
var shardNode = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// shardPath returns the path under public/ that rest (the request path after /shards/) names:
// shards/NAME or shards/NODE/NAME; ok is false for anything else.
func shardPath(rest string) (name string, ok bool) {
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 1 && shardFile.MatchString(parts[0]):
	case len(parts) == 2 && shardNode.MatchString(parts[0]) && shardFile.MatchString(parts[1]):
	default:
		return "", false
	}
	return layout.ShardsDir + "/" + rest, true
}

// handleShard answers GET /shards/{path...} with the shard's bytes: whole, or the ranges asked.
func (s *Server) handleShard(w http.ResponseWriter, r *http.Request) {
	name, ok := shardPath(r.PathValue("path"))
	if !ok {
		writeError(w, http.StatusNotFound, "no such shard: a shard is /shards/PUBLIC-<yyyyMMddHHmmss>-<serial>.warc.gz, as the public CDXJ names it")
		return
	}
	f, err := s.fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		writeError(w, http.StatusNotFound, "no such shard: "+name)
		return
	}
	if err != nil {
		s.log.Error("shard not opened", "file", name, "err", err)
		writeError(w, http.StatusInternalServerError, "the shard cannot be read")
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	ra, random := f.(io.ReaderAt)
	if err != nil || !random || !fi.Mode().IsRegular() {
		s.log.Error("shard not readable by ranges", "file", name, "err", err)
		writeError(w, http.StatusInternalServerError, "the shard cannot be read")
		return
	}
	if p, ok := f.(readPlanner); ok { // a bucket's object: the bytes asked for in one ranged GET
		from, to := int64(0), fi.Size()-1
		if br, ok := parseByteRange(r.Header.Get("Range")); ok {
			from, to, _ = br.resolve(fi.Size())
		}
		p.WillRead(from, to-from+1)
	}
	h := w.Header()
	h.Set("Content-Type", "application/gzip")                             // the file as stored: gzip members, no Content-Encoding
	h.Set("ETag", `"`+strings.TrimPrefix(name, layout.ShardsDir+"/")+`"`) // names never repeat, files never change
	h.Set("Cache-Control", cacheRecord)
	http.ServeContent(newDeadlineWriter(w, s.opt.WriteStall, time.Now()), r, fi.Name(), fi.ModTime(), io.NewSectionReader(ra, 0, fi.Size()))
}
