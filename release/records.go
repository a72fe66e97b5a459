package release

import (
	"time"

	"github.com/archivectl/archivectl/store"
)

// The WARC record types the releaser writes itself.
const (
	typeWarcinfo = "warcinfo"
	typeMetadata = "metadata"
)

// recordID is the WARC-Record-ID of a public record the releaser writes itself, derived from seed.
// Public records get ids that depend only on what they describe, so a replayed pass writes the same bytes.
func recordID(seed string) string { return store.DerivedRecordID("archivectl-release:" + seed) }

// warcinfo is the first record of every public file.
func warcinfo(software, name string, pass time.Time, description string) ([]byte, error) {
	block := store.WarcinfoBlock(software,
		[2]string{"description", description},
		[2]string{"release-pass", pass.UTC().Format(time.RFC3339)})
	rec, err := store.MarshalRecord(typeWarcinfo, recordID("warcinfo:"+name), pass, "application/warc-fields", block,
		[2]string{"WARC-Filename", name})
	if err != nil {
		return nil, err
	}
	return rec, nil
}
