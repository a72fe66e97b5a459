package lookup

import (
	"time"

	"github.com/archivectl/archivectl/public"
)

// passIndex says which release pass published a released capture, for the captures the tail of
// the release log names (the most recent releases, read once per index generation by
// recentReleases): the CDXJ line does not carry its pass, and reading the whole log per request
// would cost as much as the archive is old. A capture it does not know shows no "public since".
type passIndex map[passKey]time.Time

// passKey is where a released capture's record lies: the log names it so, and so does its line.
type passKey struct {
	file   string
	offset int64
}

// passes returns the pass index of ix's generation.
func (s *Server) passes(ix *index) passIndex {
	entries := s.recentReleases(ix, recentKeep)
	p := make(passIndex, len(entries))
	for _, e := range entries {
		if e.Event == public.EventReleased && !e.Pass.IsZero() {
			p[passKey{e.File, e.Offset}] = e.Pass
		}
	}
	return p
}

// fill sets the "public since" of a released capture when the index knows its pass.
func (p passIndex) fill(pc *pageCapture, c *capture) {
	if !c.released {
		return
	}
	if t, ok := p[passKey{c.file, c.offset}]; ok {
		pc.PublicSince, pc.PublicSinceISO = t.UTC().Format("2006-01-02 15:04:05 UTC"), t.UTC().Format(time.RFC3339)
	}
}
