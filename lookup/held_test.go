package lookup

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/public"
	dto "github.com/prometheus/client_model/go"
)

func TestHeldBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		size      int64
		taken     int64 // held by others before the request
		ask       int64
		freeAfter time.Duration // others give theirs back after this; 0: never
		got       int64
		err       error
	}{
		{"fits", 100, 0, 60, 0, 60, nil},
		{"larger than the budget: the whole budget", 100, 0, 500, 0, 100, nil},
		{"full, stays full", 100, 80, 60, 0, 0, errBusy},
		{"full, freed in time", 100, 80, 60, 10 * time.Millisecond, 60, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newHeldBudget(tc.size)
			if _, err := b.acquire(context.Background(), tc.taken, 0); err != nil {
				t.Fatal(err)
			}
			if tc.freeAfter > 0 {
				time.AfterFunc(tc.freeAfter, func() { b.release(tc.taken) })
			}
			got, err := b.acquire(context.Background(), tc.ask, 200*time.Millisecond)
			if got != tc.got || !errors.Is(err, tc.err) {
				t.Errorf("acquire(%d) = %d, %v; want %d, %v", tc.ask, got, err, tc.got, tc.err)
			}
		})
	}
	t.Run("request gone while waiting", func(t *testing.T) {
		t.Parallel()
		b := newHeldBudget(10)
		b.acquire(context.Background(), 10, 0)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := b.acquire(ctx, 5, time.Minute); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

// TestHeavyAnswersWhenBudgetFull: with the held-bytes budget all taken, heavy answers answer 503
// with Retry-After, counted per route, and light ones are served as before.
func TestHeavyAnswersWhenBudgetFull(t *testing.T) {
	t.Parallel()
	f := standard(t)
	f.release(public.CDXJ{
		URL: "https://heavy.example/r", Mime: "text/plain", Status: 200, Digest: "sha256:ff", ID: "<urn:uuid:heavy>",
		Time: "2026-08-01T10:00:00Z", ReleaseAt: "2026-08-08T10:00:00Z",
	}, "text/plain", strings.Repeat("heavy ", 50_000))
	for i := range 40 {
		f.tombstone(public.CDXJ{
			URL: fmt.Sprintf("https://heavy.example/p%02d", i), Status: 200, Digest: "sha256:dd", ID: fmt.Sprintf("<urn:uuid:h%d>", i),
			Time: "2026-11-20T00:00:00Z", ReleaseAt: "2026-12-20T00:00:00Z", Headers: [][2]string{{"X-Big", strings.Repeat("h", 4<<10)}},
		})
	}
	for i := range 600 { // CDX lines of ~150 bytes: ~90 KB held for sort=reverse
		f.tombstone(public.CDXJ{
			URL: fmt.Sprintf("https://heavy.example/c/%03d", i), Status: 200, Digest: "sha256:dd", ID: fmt.Sprintf("<urn:uuid:c%d>", i),
			Time: "2026-11-20T00:00:00Z", ReleaseAt: "2026-12-20T00:00:00Z",
		})
	}
	f.commit()
	s, err := Open(f.dir, Options{Now: func() time.Time { return testNow }, Logger: discard, MaxHeldBytes: 1 << 20, HeldWait: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.held.acquire(context.Background(), 1<<20, 0); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, route, target string
		code                int
	}{
		{"held record", "record", "/api/v1/record?url=https://heavy.example/r", 503},
		{"held payload", "record", "/api/v1/record?url=https://heavy.example/r&format=payload", 503},
		{"small record", "", "/api/v1/record?url=https://example.com/a", 200},
		{"gzip member of the held record (small)", "", "/api/v1/record?url=https://heavy.example/r&format=warc.gz", 200},
		{"large prefix page", "captures", "/api/v1/captures?url=https://heavy.example/&matchType=prefix&limit=1000", 503},
		{"small prefix page", "", "/api/v1/captures?url=https://example.com/tree/&matchType=prefix", 200},
		{"CDX reverse, held", "cdx", "/cdx?url=heavy.example/c/*&sort=reverse&showEmbargoed=true", 503},
		{"CDX streamed", "", "/cdx?url=heavy.example/*", 200},
		{"HTML prefix page", "page", "/?url=https://heavy.example/&matchType=prefix&limit=1000", 503},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := get(t, s, tc.target)
			if tc.code != 0 && rec.Code != tc.code {
				t.Fatalf("%s: %d %s, want %d", tc.target, rec.Code, trunc(rec.Body.String(), 200), tc.code)
			}
			if rec.Code == http.StatusServiceUnavailable && rec.Header().Get("Retry-After") != busyRetryAfter {
				t.Errorf("503 with Retry-After %q, want %q", rec.Header().Get("Retry-After"), busyRetryAfter)
			}
		})
	}
	for _, route := range []string{"record", "captures", "page", "cdx"} {
		var m dto.Metric
		s.rejected.WithLabelValues(route).Write(&m)
		if m.GetCounter().GetValue() == 0 {
			t.Errorf("archivectl_lookup_heavy_rejected_total{route=%q} = 0", route)
		}
	}
	s.held.release(1 << 20)
	if rec := get(t, s, "/api/v1/record?url=https://heavy.example/r"); rec.Code != 200 || rec.Body.Len() < 300_000 {
		t.Errorf("budget free again: %d with %d bytes", rec.Code, rec.Body.Len())
	}
	if h := s.held.held(); h != 0 {
		t.Errorf("%d bytes still held", h)
	}
}

// TestHeavyAnswersTakeTurns: concurrent prefix pages that each need most of the budget are all
// served, one after another, instead of each holding part of it and waiting for the rest.
func TestHeavyAnswersTakeTurns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i := range 200 {
		f.tombstone(public.CDXJ{
			URL: fmt.Sprintf("https://wide.example/p%03d", i), Status: 200, Digest: "sha256:dd", ID: fmt.Sprintf("<urn:uuid:w%d>", i),
			Time: "2026-11-20T00:00:00Z", ReleaseAt: "2026-12-20T00:00:00Z", Headers: [][2]string{{"X-Big", strings.Repeat("x", 4<<10)}},
		})
	}
	f.commit()
	// A page holds ~0.9 MB and its answer as much again: one at a time fits in 2 MiB.
	s, err := Open(f.dir, Options{Now: func() time.Time { return testNow }, Logger: discard, MaxHeldBytes: 2 << 20, HeldWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	codes := make(chan int, 8)
	var wg sync.WaitGroup
	for range cap(codes) {
		wg.Go(func() {
			codes <- get(t, s, "/api/v1/captures?url=https://wide.example/&matchType=prefix&limit=1000").Code
		})
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("a concurrent heavy page answered %d, want 200", c)
		}
	}
	if h := s.held.held(); h != 0 {
		t.Errorf("%d bytes still held", h)
	}
}
