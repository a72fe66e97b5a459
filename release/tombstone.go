package release

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/archivectl/archivectl/store"
)

// TombstoneType is the Content-Type of a tombstone record's block.
const TombstoneType = "application/json"

// Tombstone is the JSON block of a public tombstone record: the facts of an embargoed capture
// that anyone may see (embargo draft §2) — never a byte of its body.
type Tombstone struct {
	ID            string      `json:"id"` // the sealed capture's id
	URL           string      `json:"url"`
	Time          time.Time   `json:"time"` // capture time
	Status        int         `json:"status"`
	Mime          string      `json:"mime,omitempty"`
	Headers       [][2]string `json:"headers"` // the response header fields as received
	PayloadDigest string      `json:"payload_digest"`
	ReleaseAt     time.Time   `json:"release_at"`
	PeriodDays    int         `json:"period_days"`
	Usage         []string    `json:"usage,omitempty"`        // combined Content-Usage preferences
	UsageHeader   []string    `json:"usage_header,omitempty"` // Content-Usage header field lines, raw
	UsageRobots   []string    `json:"usage_robots,omitempty"` // robots.txt Content-Usage expressions, raw
	Revisit       bool        `json:"revisit,omitempty"`
	RefersTo      string      `json:"refers_to,omitempty"`
}

// tombstoneOf gathers the public facts of an entry.
func tombstoneOf(e store.Entry) Tombstone {
	h := e.Headers
	if h == nil {
		h = [][2]string{}
	}
	return Tombstone{
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
	return store.MarshalRecord(typeMetadata, recordID("tombstone:"+e.ID), pass, TombstoneType, block,
		[2]string{"WARC-Target-URI", e.URL},
		[2]string{"WARC-Refers-To", store.IDRef(e.ID)})
}
