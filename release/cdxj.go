// Package release makes sealed captures public: due records are byte-copied into public
// shards with CDXJ indexes, the rest get tombstones. It never imports the crawler.
package release

// CDXJ is the JSON block of one line of a public CDXJ index (webrecorder CDXJ):
// "SURT 14-digit-timestamp {json}". Released captures and tombstones share this shape.
type CDXJ struct {
	URL       string      `json:"url"`
	Mime      string      `json:"mime,omitempty"`
	Status    int         `json:"status,omitempty"`
	Digest    string      `json:"digest"`            // payload digest, "sha256:<hex>"
	Length    int64       `json:"length"`            // the record's gzip member length
	Offset    int64       `json:"offset"`            // the record's gzip member offset
	Filename  string      `json:"filename"`          // relative to public/, e.g. "shards/…warc.gz"
	Usage     []string    `json:"usage,omitempty"`   // combined Content-Usage preferences
	ReleaseAt string      `json:"release_at"`        // RFC 3339, UTC
	ID        string      `json:"id"`                // the capture id (WARC-Record-ID of the sealed response)
	State     string      `json:"state"`             // "released" or "embargoed"
	Time      string      `json:"time"`              // capture time, RFC 3339 UTC (the 14-digit key drops nothing but the zone)
	Headers   [][2]string `json:"headers,omitempty"` // tombstones: the response header fields
	Revisit   bool        `json:"revisit,omitempty"` // a revisit record (identical payload)
	RefersTo  string      `json:"refers_to,omitempty"`
}
