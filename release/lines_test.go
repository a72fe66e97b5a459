package release

import (
	"bytes"
	"testing"
	"time"

	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// TestCDXJLineEmbargoSource: a tombstone's and a released capture's line say what set the
// embargo when the index knows it, and hold no embargo_source key when it does not.
func TestCDXJLineEmbargoSource(t *testing.T) {
	t.Parallel()
	e := store.Entry{ID: "<urn:uuid:1>", URL: "https://example.com/a", Time: t0, Status: 200, Mime: "text/html",
		PayloadDigest: "sha256:ab", ReleaseAt: t0.Add(31 * 24 * time.Hour)}
	loc := store.Location{File: "tombstones/T.warc.gz", Offset: 10, Length: 20}
	for _, state := range []string{public.StateTombstone, public.StateReleased} {
		for _, source := range []string{"", "robots.txt", "header"} {
			e.EmbargoSource = source
			b, err := cdxjLine(e, state, loc)
			if err != nil {
				t.Fatal(err)
			}
			l, err := public.ParseLine(b)
			if err != nil {
				t.Fatal(err)
			}
			if l.EmbargoSource != source || l.State != state {
				t.Errorf("%s, source %q: line says %q, state %q: %s", state, source, l.EmbargoSource, l.State, b)
			}
			if has := bytes.Contains(b, []byte(`"embargo_source"`)); has != (source != "") {
				t.Errorf("%s, source %q: embargo_source key present %v: %s", state, source, has, b)
			}
		}
	}
}
