package lookup

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

func TestRefreshOnNewGeneration(t *testing.T) {
	t.Parallel()
	f := standard(t)
	s := f.server(testNow)
	if reloaded, err := s.Refresh(); err != nil || reloaded {
		t.Fatalf("Refresh with nothing new = %v, %v; want no reload", reloaded, err)
	}
	// A release pass in another process adds a capture; until state.json changes, nothing moves.
	f.tombstone(public.CDXJ{URL: "https://example.com/new", Status: 200, Digest: "sha256:01", ID: "<urn:uuid:new>",
		Time: "2026-11-29T20:30:00Z", ReleaseAt: "2026-12-06T20:30:00Z"})
	gen := f.gen
	f.commit()
	if rec := get(t, s, "/api/v1/captures?url=https://example.com/new"); rec.Code != 404 {
		t.Fatalf("before Refresh: status %d, want 404", rec.Code)
	}
	if reloaded, err := s.Refresh(); err != nil || !reloaded {
		t.Fatalf("Refresh after generation %d→%d = %v, %v; want a reload", gen, f.gen, reloaded, err)
	}
	if rec := get(t, s, "/api/v1/captures?url=https://example.com/new"); rec.Code != 200 {
		t.Fatalf("after Refresh: status %d, want 200", rec.Code)
	}
	if got := s.ix.Load().generation; got != int64(f.gen) {
		t.Errorf("generation %d, want %d", got, f.gen)
	}
}

func TestNoPublicDirectoryYet(t *testing.T) {
	t.Parallel()
	f := newFixture(t) // public/ does not exist: nothing has been released
	s := f.server(testNow)
	if rec := get(t, s, "/api/v1/captures?url=https://example.com/a"); rec.Code != 404 {
		t.Fatalf("status %d, want 404", rec.Code)
	}
	if rec := get(t, s, "/"); rec.Code != 200 {
		t.Fatalf("page: status %d, want 200", rec.Code)
	}
	f.tombstone(public.CDXJ{URL: "https://example.com/a", Status: 200, Digest: "sha256:01", ID: "<urn:uuid:1>",
		Time: "2026-11-29T20:30:00Z", ReleaseAt: "2026-12-06T20:30:00Z"})
	f.commit()
	if reloaded, err := s.Refresh(); err != nil || !reloaded {
		t.Fatalf("Refresh = %v, %v; want the first load", reloaded, err)
	}
	if rec := get(t, s, "/api/v1/captures?url=https://example.com/a"); rec.Code != 200 {
		t.Fatalf("status %d, want 200", rec.Code)
	}
}

func TestBadStateKeepsServing(t *testing.T) {
	t.Parallel()
	f := standard(t)
	s := f.server(testNow)
	f.write("state.json", []byte("{half a file"))
	if _, err := s.Refresh(); err == nil {
		t.Fatal("Refresh of a corrupt state.json gave no error")
	}
	if rec := get(t, s, "/api/v1/captures?url=https://example.com/a"); rec.Code != 200 {
		t.Fatalf("status %d, want the previous index to keep answering", rec.Code)
	}
}

// Lookups go on, always answering from a complete index, while passes replace files and reload.
func TestAnswersDuringReloads(t *testing.T) {
	t.Parallel()
	f := standard(t)
	s := f.server(testNow)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var failures atomic.Int64
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				rec := get(t, s, "/api/v1/captures?url=https://example.com/a")
				if rec.Code != http.StatusOK {
					failures.Add(1)
				}
				var got capturesJSON
				decode(t, rec.Body, &got)
				if len(got.Captures) != 2 {
					failures.Add(1)
				}
			}
		})
	}
	for i := range 20 {
		f.tombstone(public.CDXJ{URL: fmt.Sprintf("https://example.com/more/%d", i), Status: 200, Digest: "sha256:01",
			ID: fmt.Sprintf("<urn:uuid:m%d>", i), Time: "2026-11-29T20:30:00Z", ReleaseAt: "2026-12-06T20:30:00Z"})
		f.commit()
		if _, err := s.Refresh(); err != nil {
			t.Error(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Errorf("%d lookups failed during reloads", n)
	}
	if got := s.ix.Load().embargoed; got != 1+25+1+20 {
		t.Errorf("%d embargoed after reloads, want %d", got, 47)
	}
}

func TestIgnoresUnfinishedFiles(t *testing.T) {
	t.Parallel()
	f := standard(t)
	line := `com,example)/partial 20261129000000 {"url":"https://example.com/partial","digest":"sha256:1","length":0,"offset":0,"filename":"","release_at":"2026-12-01T00:00:00Z","id":"x","state":"embargoed","time":"2026-11-29T00:00:00Z"}` + "\n"
	for _, name := range []string{"shards/PUBLIC-x.cdxj.tmp", "tombstones/TOMBSTONES-x.cdxj.open", "shards/notes.txt"} {
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.reindex()
	s := f.server(testNow)
	if rec := get(t, s, "/api/v1/captures?url=https://example.com/partial"); rec.Code != 404 {
		t.Errorf("a line from an unfinished file was served: status %d", rec.Code)
	}
}

// A reload after a pass opens only the segments the pass wrote, shares the others with the
// index it replaces, and answers as an index opened afresh: a tombstoned capture released now
// shows as released, new tombstones appear.
func TestReloadSharesSegments(t *testing.T) {
	t.Parallel()
	f := standard(t)
	s := f.server(time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)) // after p03's release time: shown released
	before := s.ix.Load()
	// A pass's commit: its lines as one new segment, as the releaser writes it.
	c := public.CDXJ{URL: "https://example.com/tree/p03", Status: 200, Digest: "sha256:dd", ID: "<urn:uuid:t3>",
		Time: "2026-11-20T00:00:00Z", ReleaseAt: "2026-12-04T12:00:00Z", State: "released",
		Filename: "shards/PUBLIC-20261129000000-00001.warc.gz", Offset: 0, Length: 10}
	lines := [][]byte{mustLine(t, c)}
	for i := range 5 {
		lines = append(lines, mustLine(t, public.CDXJ{URL: fmt.Sprintf("https://example.org/%d", i), Status: 200, Digest: "sha256:02",
			ID: fmt.Sprintf("<urn:uuid:o%d>", i), Time: "2026-11-29T20:30:00Z", ReleaseAt: "2027-01-06T20:30:00Z", State: "embargoed",
			Filename: "tombstones/T.warc.gz", Length: 5, Headers: [][2]string{{"Server", "x"}}}))
	}
	tmp := t.TempDir()
	pc, err := pubindex.Prepare(nil, f.dir, tmp, int64(f.gen+1), lines)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range pc.Files {
		if err := os.Rename(file.Tmp, filepath.Join(f.dir, pubindex.Dir, file.Name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := pubindex.WriteManifest(f.dir, pc.Manifest); err != nil {
		t.Fatal(err)
	}
	if reloaded, err := s.Refresh(); err != nil || !reloaded {
		t.Fatalf("Refresh = %v, %v", reloaded, err)
	}
	inc := s.ix.Load()
	if inc.set.Segments() != 2 || before.set.Segments() != 1 {
		t.Fatalf("segments before %d, after %d; want 1, 2", before.set.Segments(), inc.set.Segments())
	}
	fresh, err := pubindex.Open(s.fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	full := index{}.withSet(fresh)
	all := func(ix *index) []capture {
		cs, _, err := ix.prefix(matcher{}, cursor{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	if a, b := all(inc), all(full); !reflect.DeepEqual(a, b) || inc.released != full.released || inc.embargoed != full.embargoed {
		t.Fatalf("reloaded %d captures (%d released), fresh %d (%d released)", len(a), inc.released, len(b), full.released)
	}
	if !reflect.DeepEqual(inc.days, full.days) {
		t.Errorf("days: reloaded %v, fresh %v", inc.days, full.days)
	}
	var got capturesJSON
	decode(t, get(t, s, "/api/v1/captures?url=https://example.com/tree/p03").Body, &got)
	if len(got.Captures) != 1 || got.Captures[0].State != "released" {
		t.Errorf("p03 after its release: %+v", got.Captures)
	}
}

// mustLine is the CDXJ line of c.
func mustLine(t *testing.T, c public.CDXJ) []byte {
	t.Helper()
	key, err := surt.Key(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(time.RFC3339, c.Time)
	if err != nil {
		t.Fatal(err)
	}
	b, err := public.FormatLine(key, at, c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Watch takes a new generation without a restart, at its next check (every 250 ms by default).
func TestWatchTakesNewGeneration(t *testing.T) {
	t.Parallel()
	f := standard(t)
	s := f.server(testNow)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx)
	f.tombstone(public.CDXJ{URL: "https://example.com/watched", Status: 200, Digest: "sha256:01", ID: "<urn:uuid:w>",
		Time: "2026-11-29T20:30:00Z", ReleaseAt: "2026-12-06T20:30:00Z"})
	f.commit()
	committed := time.Now()
	for get(t, s, "/api/v1/captures?url=https://example.com/watched").Code != http.StatusOK {
		if time.Since(committed) > 10*time.Second {
			t.Fatal("the new generation is not served 10 s after its commit")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("served %v after the commit", time.Since(committed).Round(time.Millisecond))
}
