package index

import (
	"time"

	"github.com/archivectl/archivectl/internal/warcrecord"
)

// t0 is the tests' capture time.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Digest is the WARC digest of b with alg ("sha256" unless "sha1"), as the repository writes it.
func Digest(alg string, b []byte) string {
	name, h, _ := warcrecord.NewHash(alg + ":")
	h.Write(b)
	return warcrecord.Format(name, h.Sum(nil))
}
