package store

import (
	"path/filepath"
	"testing"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/nlnwa/gowarc/v3"
)

// TestPayloadDigestOnlyWithPayload: every sealed record carries its block digest; the records with
// an HTTP payload (request, response, revisit) carry a payload digest too, and warcinfo and metadata
// records, which have no payload, none (WARC 1.1 §5.9).
func TestPayloadDigestOnlyWithPayload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sealMixed(t, dir)
	files, err := filepath.Glob(filepath.Join(dir, layout.SealedDir, "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("sealed files: %v %v", files, err)
	}
	seen := map[gowarc.RecordType]int{}
	for _, f := range files {
		err := ScanFile(f, func(loc Location, rec gowarc.WarcRecord) error {
			h := rec.WarcHeader()
			seen[rec.Type()]++
			withPayload := rec.Type() != gowarc.Warcinfo && rec.Type() != gowarc.Metadata
			if h.Get(gowarc.WarcBlockDigest) == "" || h.Has(gowarc.WarcPayloadDigest) != withPayload {
				t.Errorf("%s@%d: a %s record with block digest %q and payload digest %q", loc.File, loc.Offset, rec.Type(),
					h.Get(gowarc.WarcBlockDigest), h.Get(gowarc.WarcPayloadDigest))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, typ := range []gowarc.RecordType{gowarc.Warcinfo, gowarc.Request, gowarc.Response, gowarc.Revisit, gowarc.Metadata} {
		if seen[typ] == 0 {
			t.Errorf("no %s record sealed: %v", typ, seen)
		}
	}
}
