package index

import (
	"time"

	"github.com/archivectl/archivectl/embargo"
)

// SourceRequisite is the EmbargoSource of a requisite withheld for the page that embeds it: its
// release time is that page's, later than its own, and it gets no tombstone (docs/rules.md#d27).
// The repository's Seal sets it; a capture as fetched does not.
const SourceRequisite = "requisite"

// Location is where one record's gzip member lies: a file name (relative to its repository
// directory, never a local absolute path), the member's offset and its compressed length.
type Location struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
}

// CaptureState is where a capture stands on its way to the public.
type CaptureState uint8

// The states of a capture.
const (
	Sealed     CaptureState = iota // only in the sealed repository
	Tombstoned                     // a public tombstone exists; the body is still sealed
	Released                       // its records are byte-copied into a public shard
)

// String names the state.
func (s CaptureState) String() string {
	switch s {
	case Sealed:
		return "sealed"
	case Tombstoned:
		return "tombstoned"
	case Released:
		return "released"
	}
	return "unknown"
}

// Entry is the index's record of one sealed capture: everything needed to release it or show its tombstone.
type Entry struct {
	ID            string         `json:"id"` // the response (or revisit) record's WARC-Record-ID
	URL           string         `json:"url"`
	SURT          string         `json:"surt"`
	Time          time.Time      `json:"time"` // capture time
	Status        int            `json:"status"`
	Mime          string         `json:"mime"`
	Headers       [][2]string    `json:"headers"`        // response header fields as received, in order
	PayloadDigest string         `json:"payload_digest"` // "sha256:<hex>" or "sha1:<base32>"
	LastModified  string         `json:"last_modified,omitempty"`
	Period        embargo.Period `json:"period"`
	FirstSeen     time.Time      `json:"first_seen"`
	ReleaseAt     time.Time      `json:"release_at"`
	Robots        bool           `json:"robots,omitempty"`
	Revisit       bool           `json:"revisit,omitempty"`
	RefersTo      string         `json:"refers_to,omitempty"` // a revisit's original capture id
	UsageHeader   []string       `json:"usage_header,omitempty"`
	UsageRobots   []string       `json:"usage_robots,omitempty"`
	Usage         []string       `json:"usage,omitempty"`
	EmbargoSource string         `json:"embargo_source,omitempty"` // what set Period: "robots.txt", "header", or "" when not recorded; SourceRequisite: what set ReleaseAt, the embedding page
	Request       Location       `json:"request"`
	Response      Location       `json:"response"`
	Metadata      Location       `json:"metadata"`
	State         CaptureState   `json:"state"`
	Public        Location       `json:"public,omitzero"` // the released response record or the tombstone, relative to public/
}

// Withheld reports whether the capture is a requisite withheld for its page (SourceRequisite):
// until its release time it is neither released nor tombstoned, since even its URL was read
// from the page's body (docs/rules.md#d27).
func (e Entry) Withheld() bool { return e.EmbargoSource == SourceRequisite }
