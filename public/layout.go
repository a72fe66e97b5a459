package public

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
)

// The names of the files in public/shards and public/tombstones (internal/layout names the
// directories and the other files of public/).
const (
	ShardPrefix     = "PUBLIC"     // file name prefix of a shard
	TombstonePrefix = "TOMBSTONES" // file name prefix of a tombstone file
	WARCExt         = ".warc.gz"   // a public WARC file
	CDXJExt         = ".cdxj"      // the CDXJ index beside a public WARC file
)

// Timestamp14 is the layout of a CDXJ key's timestamp and of the timestamp in a file name.
const Timestamp14 = "20060102150405"

// WARCName is the name of a public WARC file: PREFIX-<pass as Timestamp14>-<5-digit serial>.warc.gz.
func WARCName(prefix string, pass time.Time, serial int) string {
	return fmt.Sprintf("%s-%s-%05d%s", prefix, pass.Format(Timestamp14), serial, WARCExt)
}

// Serial returns the serial of a public WARC file name with prefix; ok is false for any other name.
func Serial(name, prefix string) (serial int, ok bool) {
	base, ok := strings.CutSuffix(name, WARCExt)
	if !ok || !strings.HasPrefix(base, prefix+"-") {
		return 0, false
	}
	n, err := strconv.Atoi(base[strings.LastIndexByte(base, '-')+1:])
	return n, err == nil
}

// CDXJName is the name of the CDXJ index beside the public WARC file warcName.
func CDXJName(warcName string) string {
	return strings.TrimSuffix(warcName, WARCExt) + CDXJExt
}

// PathOf is where the public WARC file a CDXJ line's filename names lies, relative to public/:
// a file name is in the directory its prefix says ("PUBLIC-…" in shards/, "TOMBSTONES-…" in
// tombstones/); a name holding a "/" (the lines of earlier versions, "shards/PUBLIC-…") is that
// path already. Any other name comes back as it is, for the caller to refuse.
func PathOf(filename string) string {
	switch {
	case strings.Contains(filename, "/"):
		return filename
	case strings.HasPrefix(filename, ShardPrefix+"-"):
		return layout.ShardsDir + "/" + filename
	case strings.HasPrefix(filename, TombstonePrefix+"-"):
		return layout.TombstonesDir + "/" + filename
	}
	return filename
}
