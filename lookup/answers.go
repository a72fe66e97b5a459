package lookup

import (
	"bytes"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/archivectl/archivectl/embargo"
)

// Bounds of the answer cache: what an answer may weigh to be kept, and what all of them together
// may. Once full, one new answer in answersAdmit takes the place of arbitrary kept ones: memory
// stays bounded whatever is asked, and answers asked once (a crawl of the whole archive) do not
// churn the cache, while one asked often soon gets in.
const (
	answerMaxBytes  = 16 << 10
	answersMaxBytes = 8 << 20
	answersMax      = 8192
	answersAdmit    = 8
)

// answerCache keeps the encoded 200 answers of exact captures queries of one index, by raw
// query string: the same query string asks the same URL, so a hit skips the parsing, the index
// read and the encoding, and writes the same bytes. An answer holds until its index is
// replaced, or until the lookup's clock reaches the release time of one of its tombstones (its
// "due" mark changes then).
type answerCache struct {
	mu      sync.RWMutex
	ix      *index // the index the answers were read from
	answers map[string]cachedAnswer
	bytes   int
	refused int // answers not kept since the cache was full
}

// cachedAnswer is one encoded answer, its Content-Length value, and when it stops holding
// (Unix nanoseconds).
type cachedAnswer struct {
	body   []byte
	length []string
	until  int64
}

// get returns the answer to query from ix at now, if one is kept.
func (a *answerCache) get(ix *index, query string, now time.Time) (cachedAnswer, bool) {
	a.mu.RLock()
	e, ok := a.answers[query]
	ok = ok && a.ix == ix && now.UnixNano() < e.until
	a.mu.RUnlock()
	return e, ok
}

// answerKey is what a kept answer was asked with: the index, the raw query string, the clock.
type answerKey struct {
	ix    *index
	query string
	now   time.Time
}

// put keeps a copy of body, the answer to k over cs (marked at k.now).
func (a *answerCache) put(k answerKey, cs []capture, body []byte) {
	ix, query, now := k.ix, k.query, k.now
	if len(body) > answerMaxBytes {
		return
	}
	until := answerUntil(cs, now)
	if until <= now.UnixNano() {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ix != ix {
		a.ix, a.answers, a.bytes, a.refused = ix, make(map[string]cachedAnswer), 0, 0
	}
	if _, ok := a.answers[query]; ok {
		return
	}
	if a.full(len(body)) {
		if a.refused++; a.refused%answersAdmit != 0 {
			return
		}
		for q, e := range a.answers { // in no particular order: arbitrary answers
			delete(a.answers, q)
			if a.bytes -= len(e.body); !a.full(len(body)) {
				break
			}
		}
	}
	a.answers[query] = cachedAnswer{body: bytes.Clone(body), length: []string{strconv.Itoa(len(body))}, until: until}
	a.bytes += len(body)
}

// full reports whether an answer of n more bytes exceeds the cache's bounds.
func (a *answerCache) full(n int) bool {
	return len(a.answers) >= answersMax || a.bytes+n > answersMaxBytes
}

// answerUntil is when an answer over cs, marked at now (markDue), stops holding: the earliest
// release time after now of a tombstone in it.
func answerUntil(cs []capture, now time.Time) int64 {
	until := int64(math.MaxInt64)
	for i := range cs {
		if c := &cs[i]; !c.released && !embargo.Releasable(time.Unix(0, c.releaseAt), now) && c.releaseAt < until {
			until = c.releaseAt
		}
	}
	return until
}

// write answers 200 with the kept answer, as writeCaptures writes one.
func (e cachedAnswer) write(w http.ResponseWriter) {
	h := w.Header()
	h["Content-Type"] = jsonType
	h["Content-Length"] = e.length // shared, like jsonType: net/http only reads it
	w.WriteHeader(http.StatusOK)
	w.Write(e.body)
}
