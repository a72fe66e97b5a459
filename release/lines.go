package release

import (
	"bytes"
	"fmt"
	"path"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// cdxjLine is the public CDXJ line of a capture in state, at loc. Its key is the URL's SURT key
// as surt.Key computes it now (index.db may hold the older form of an archive sealed before, until
// verify --reindex); its filename is the file's name alone, as replay tools resolve it against
// their archive paths (public.PathOf finds the file).
func cdxjLine(e store.Entry, state string, loc store.Location) ([]byte, error) {
	key, err := surt.Key(e.URL)
	if err != nil {
		if key = e.SURT; key == "" {
			return nil, fmt.Errorf("capture %s: %w", e.ID, err)
		}
	}
	return public.FormatLine(key, e.Time, public.CDXJ{
		URL: e.URL, Mime: e.Mime, Status: e.Status, Digest: e.PayloadDigest,
		Length: loc.Length, Offset: loc.Offset, Filename: path.Base(loc.File), Usage: e.Usage, UsageRobots: e.UsageRobots, UsageHeader: e.UsageHeader,
		ReleaseAt: e.ReleaseAt.UTC().Format(time.RFC3339Nano), EmbargoSource: e.EmbargoSource, ID: e.ID, State: state,
		Time: e.Time.UTC().Format(time.RFC3339Nano), Headers: e.Headers, Revisit: e.Revisit, RefersTo: e.RefersTo,
	})
}

// writeLogLine appends one JSON line to buf.
func writeLogLine(buf *bytes.Buffer, e public.LogEntry) error {
	b, err := public.AppendLogEntry(buf.AvailableBuffer(), e) // what json.Marshal(e) writes
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	buf.Write(b)
	buf.WriteByte('\n')
	return nil
}
