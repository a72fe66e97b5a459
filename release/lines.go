package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/archivectl/archivectl/release/public"
	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/surt"
)

// cdxjLine is the public CDXJ line of a capture in state, at loc.
func cdxjLine(e store.Entry, state string, loc store.Location) ([]byte, error) {
	key := e.SURT
	if key == "" {
		var err error
		if key, err = surt.Key(e.URL); err != nil {
			return nil, fmt.Errorf("release: capture %s: %w", e.ID, err)
		}
	}
	return public.FormatLine(key, e.Time, public.CDXJ{
		URL: e.URL, Mime: e.Mime, Status: e.Status, Digest: e.PayloadDigest,
		Length: loc.Length, Offset: loc.Offset, Filename: loc.File, Usage: e.Usage, UsageRobots: e.UsageRobots, UsageHeader: e.UsageHeader,
		ReleaseAt: e.ReleaseAt.UTC().Format(time.RFC3339Nano), ID: e.ID, State: state,
		Time: e.Time.UTC().Format(time.RFC3339Nano), Headers: e.Headers, Revisit: e.Revisit, RefersTo: e.RefersTo,
	})
}

// writeLogLine appends one JSON line to buf.
func writeLogLine(buf *bytes.Buffer, e public.LogEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("release: log: %w", err)
	}
	buf.Write(b)
	buf.WriteByte('\n')
	return nil
}
