package public

import "time"

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
