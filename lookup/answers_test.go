package lookup

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/public"
)

// TestAnswerCache asks each query twice of one server, the clock moving between some of them,
// and compares every answer, kept or not, with that of a fresh server at the same clock: a kept
// answer is the same bytes and headers, and one whose tombstone has come due is not kept.
func TestAnswerCache(t *testing.T) {
	t.Parallel()
	f := standard(t)
	var clock atomic.Int64
	clock.Store(testNow.UnixNano())
	s, err := Open(f.dir, Options{Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }, Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) // tree/p00's release time
	for _, tc := range []struct {
		name, target string
		now          time.Time
	}{
		{"released and embargoed", "/api/v1/captures?url=https%3A%2F%2Fwww.example.com%2Fa", testNow},
		{"the same, kept", "/api/v1/captures?url=https%3A%2F%2Fwww.example.com%2Fa", testNow},
		{"another spelling", "/api/v1/captures?url=example.com/a", testNow},
		{"a tombstone", "/api/v1/captures?url=https://example.com/tree/p00", testNow},
		{"the same, kept", "/api/v1/captures?url=https://example.com/tree/p00", testNow},
		{"a nanosecond before due", "/api/v1/captures?url=https://example.com/tree/p00", due.Add(-time.Nanosecond)},
		{"due", "/api/v1/captures?url=https://example.com/tree/p00", due},
		{"due, kept", "/api/v1/captures?url=https://example.com/tree/p00", due.Add(time.Hour)},
		{"a prefix", "/api/v1/captures?url=https://example.com/tree/&matchType=prefix&limit=3", due},
		{"the prefix again", "/api/v1/captures?url=https://example.com/tree/&matchType=prefix&limit=3", due},
		{"never public", "/api/v1/captures?url=https://example.com/none", due},
		{"never public again", "/api/v1/captures?url=https://example.com/none", due},
		{"bad", "/api/v1/captures?url=%zz", due},
	} {
		clock.Store(tc.now.UnixNano())
		got := get(t, s, tc.target)
		want := httptest.NewRecorder()
		f.server(tc.now).ServeHTTP(want, httptest.NewRequest(http.MethodGet, tc.target, nil))
		if got.Code != want.Code || got.Body.String() != want.Body.String() {
			t.Errorf("%s: %d %s\nwant %d %s", tc.name, got.Code, got.Body, want.Code, want.Body)
		}
		for k := range want.Header() {
			if g, w := got.Header().Values(k), want.Header().Values(k); len(g) != len(w) || (len(w) > 0 && g[0] != w[0]) {
				t.Errorf("%s: %s %q, want %q", tc.name, k, g, w)
			}
		}
	}
}

// TestAnswerCacheReload checks that a new index is never answered from what the old one kept.
func TestAnswerCacheReload(t *testing.T) {
	t.Parallel()
	f := standard(t)
	s := f.server(testNow)
	const target = "/api/v1/captures?url=https://example.com/tree/p01"
	before := get(t, s, target).Body.String()
	if get(t, s, target).Body.String() != before {
		t.Fatal("a kept answer differs")
	}
	f.tombstone(public.CDXJ{URL: "https://example.com/tree/p01", Status: 200, Digest: "sha256:02", ID: "<urn:uuid:p01b>",
		Time: "2026-11-29T20:30:00Z", ReleaseAt: "2026-12-06T20:30:00Z"})
	f.commit()
	if reloaded, err := s.Refresh(); err != nil || !reloaded {
		t.Fatalf("Refresh = %v, %v; want a reload", reloaded, err)
	}
	after := get(t, s, target).Body.String()
	if after == before {
		t.Fatalf("after the reload the old answer: %s", after)
	}
	if want := httptestBody(f.server(testNow), target); after != want {
		t.Errorf("after the reload %s\nwant %s", after, want)
	}
}

func httptestBody(s *Server, target string) string {
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec.Body.String()
}

// TestAnswerCacheBounds fills the cache past its bounds: it stays within them, and keeps taking
// in some new answers.
func TestAnswerCacheBounds(t *testing.T) {
	t.Parallel()
	ix := &index{}
	for _, size := range []int{100, 4 << 10} {
		var a answerCache
		body := make([]byte, size)
		for i := range 3 * answersMax {
			a.put(answerKey{ix, fmt.Sprint("url=", i), testNow}, nil, body)
			if len(a.answers) > answersMax || a.bytes > answersMaxBytes {
				t.Fatalf("size %d, after %d answers: %d kept, %d bytes", size, i+1, len(a.answers), a.bytes)
			}
		}
		// The last answer put is the answersAdmit-th refused since the cache was full, at both sizes.
		if _, ok := a.get(ix, fmt.Sprint("url=", 3*answersMax-1), testNow); !ok {
			t.Errorf("size %d: the last admitted answer is not kept", size)
		}
	}
}
