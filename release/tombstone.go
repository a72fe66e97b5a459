package release

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/archivectl/archivectl/release/public"
	"github.com/archivectl/archivectl/store"
)

// tombstoneOf gathers the public facts of an entry.
func tombstoneOf(e store.Entry) public.Tombstone {
	h := e.Headers
	if h == nil {
		h = [][2]string{}
	}
	return public.Tombstone{
		ID: e.ID, URL: e.URL, Time: e.Time.UTC(), Status: e.Status, Mime: e.Mime, Headers: h,
		PayloadDigest: e.PayloadDigest, ReleaseAt: e.ReleaseAt.UTC(), PeriodDays: e.Period.Days(),
		Usage: e.Usage, UsageHeader: e.UsageHeader, UsageRobots: e.UsageRobots,
		Revisit: e.Revisit, RefersTo: e.RefersTo,
	}
}

// tombstoneRecord is the WARC record of a tombstone: a `metadata` record about the target URI,
// WARC-Refers-To the sealed capture, dated at the pass, with the Tombstone as application/json.
func tombstoneRecord(e store.Entry, pass time.Time) ([]byte, error) {
	block, err := json.Marshal(tombstoneOf(e))
	if err != nil {
		return nil, fmt.Errorf("release: tombstone of %s: %w", e.ID, err)
	}
	return store.MarshalRecord(typeMetadata, recordID("tombstone:"+e.ID), pass, public.TombstoneType, block,
		[2]string{"WARC-Target-URI", e.URL},
		[2]string{"WARC-Refers-To", store.IDRef(e.ID)})
}
