package crawler

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/store"
	bolt "go.etcd.io/bbolt"
)

func TestSealFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		links   string
		sealed  int    // page captures sealed
		failed  int    // seal errors counted
		wantErr string // "" = the crawl succeeds
	}{
		{"one bad capture spares its neighbours", `<a href="/bad">b</a><a href="/ok">o</a>`, 2, 1, ""},
		{"bad captures in a row stop the crawl", `<a href="/bad1">1</a><a href="/bad2">2</a><a href="/bad3">3</a>`, 1, 3, "could not be sealed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/" {
					io.WriteString(w, tc.links)
				}
			}))
			a := &fakeArchive{failing: "bad"}
			sum, _, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, o.URL+"/"), Sitemaps: SitemapsRobots}, a)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if sum.Pages != tc.sealed || sum.Errors["seal"] != tc.failed {
				t.Fatalf("pages %d seal errors %d, want %d and %d", sum.Pages, sum.Errors["seal"], tc.sealed, tc.failed)
			}
			for _, c := range a.sealed() {
				if !c.Robots && c.RobotsID != "<urn:fake:0>" {
					t.Errorf("%s: RobotsID %q, want the robots.txt capture's id", c.URL, c.RobotsID)
				}
			}
		})
	}
}

// slowArchive seals after a pause and notes the largest group it was given.
type slowArchive struct {
	fakeArchive
	pause             time.Duration
	maxCaps, maxHeld  int
	maxBytes, maxSize int64
	held              func() (int, int64)
}

func (a *slowArchive) Seal(ctx context.Context, caps []store.Capture) ([]store.Entry, error) {
	var n int64
	for _, c := range caps {
		n += int64(len(c.Request) + len(c.Response))
	}
	held, size := a.held()
	a.mu.Lock()
	a.maxCaps, a.maxBytes = max(a.maxCaps, len(caps)), max(a.maxBytes, n)
	a.maxHeld, a.maxSize = max(a.maxHeld, held), max(a.maxSize, size)
	a.mu.Unlock()
	time.Sleep(a.pause)
	return a.fakeArchive.Seal(ctx, caps)
}

// TestSealerBounds: however fast captures come, a group holds at most maxSealBatch captures
// and about maxSealBatchBytes, and the sealer at most maxSealHeld captures and maxSealBudget
// bytes; marks without a capture do not make the groups smaller.
func TestSealerBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		size  int // response bytes a capture
		n     int
		marks int // marks without a capture after each capture
		full  bool
	}{
		{"small pages: bounded by count", 4 << 10, 4 * maxSealBatch, 0, true},
		{"small pages and marks: bounded by count", 4 << 10, 4 * maxSealBatch, 2, true},
		{"large pages: bounded by bytes", 256 << 10, 3 * maxSealBatchBytes / (256 << 10), 1, false},
		{"a page above the whole budget goes alone", maxSealBudget + 1, 3, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fr, _, err := openFrontier(filepath.Join(t.TempDir(), "frontier.db"), []string{"http://a.example/"}, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer fr.close()
			a := &slowArchive{pause: 20 * time.Millisecond}
			s := newSealer(a, fr, slog.New(slog.DiscardHandler))
			a.held = func() (int, int64) { s.mu.Lock(); defer s.mu.Unlock(); return s.held, s.pending }
			go s.run()
			body := bytes.Repeat([]byte("x"), tc.size)
			var wg sync.WaitGroup
			for i := range tc.n {
				wg.Add(1 + tc.marks)
				u := fmt.Sprintf("http://a.example/%d", i)
				s.submit(&sealJob{caps: []store.Capture{{URL: u, Request: []byte("GET"), Response: body}},
					mark: &urlChange{Item: item{URL: u}, State: done}, done: func([]store.Entry, error) { wg.Done() }})
				for m := range tc.marks {
					s.submit(&sealJob{mark: &urlChange{Item: item{URL: fmt.Sprintf("%s/private/%d", u, m)}, State: skipped},
						done: func([]store.Entry, error) { wg.Done() }})
				}
			}
			wg.Wait()
			s.close()
			if len(a.sealed()) != tc.n {
				t.Fatalf("sealed %d captures, want %d", len(a.sealed()), tc.n)
			}
			one := int64(tc.size + 3)
			if a.maxCaps > maxSealBatch || a.maxBytes > max(maxSealBatchBytes+one, one) {
				t.Errorf("largest group: %d captures, %d bytes; bounds %d and %d", a.maxCaps, a.maxBytes, maxSealBatch, maxSealBatchBytes)
			}
			if a.maxSize > max(maxSealBudget, one) || a.maxHeld > maxSealHeld {
				t.Errorf("held %d captures, %d bytes; bounds %d and %d", a.maxHeld, a.maxSize, maxSealHeld, maxSealBudget)
			}
			if tc.full && a.maxCaps < maxSealBatch {
				t.Errorf("largest group %d captures: groups do not fill up to %d", a.maxCaps, maxSealBatch)
			}
		})
	}
}

// checkingArchive checks, as each group reaches the store, that the frontier already holds
// its pages as being sealed and the URLs they found: what a kill at that point relies on.
type checkingArchive struct {
	fakeArchive
	fr     *frontier
	mu2    sync.Mutex
	faults []string
}

func (a *checkingArchive) Seal(ctx context.Context, caps []store.Capture) ([]store.Entry, error) {
	a.fr.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketURLs)
		for _, c := range caps {
			v := b.Get([]byte(c.URL))
			if v == nil {
				a.fault(c.URL + ": not in the frontier when sealed")
				continue
			}
			if _, st, _ := decodeItem([]byte(c.URL), v); st != sealing {
				a.fault(fmt.Sprintf("%s: state %d when sealed, want sealing", c.URL, st))
			}
			if b.Get([]byte(c.URL+"/found")) == nil {
				a.fault(c.URL + ": its found URL is not in the frontier when sealed")
			}
		}
		return nil
	})
	time.Sleep(time.Millisecond) // let the next group be recorded meanwhile
	return a.fakeArchive.Seal(ctx, caps)
}

func (a *checkingArchive) fault(s string) {
	a.mu2.Lock()
	a.faults = append(a.faults, s)
	a.mu2.Unlock()
}

func TestSealerRecordsBeforeSealing(t *testing.T) {
	t.Parallel()
	fr, _, err := openFrontier(filepath.Join(t.TempDir(), "frontier.db"), []string{"http://a.example/"}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.close()
	a := &checkingArchive{fr: fr}
	s := newSealer(a, fr, slog.New(slog.DiscardHandler))
	go s.run()
	const n = 3 * maxSealBatch
	var wg sync.WaitGroup
	for i := range n {
		u := fmt.Sprintf("http://a.example/%d", i)
		wg.Add(1)
		s.submit(&sealJob{caps: []store.Capture{{URL: u, Request: []byte("GET"), Response: []byte("HTTP/1.1 200 OK\r\n\r\n")}},
			mark: &urlChange{Item: item{URL: u}, State: done, Found: []item{{URL: u + "/found", Depth: 1}}},
			done: func(_ []store.Entry, err error) {
				if err != nil {
					t.Error(err)
				}
				wg.Done()
			}})
	}
	wg.Wait()
	s.close()
	for _, f := range a.faults {
		t.Error(f)
	}
	if got := len(a.sealed()); got != n {
		t.Fatalf("sealed %d, want %d", got, n)
	}
	// Closed: every sealed page is recorded done.
	fr.db.View(func(tx *bolt.Tx) error {
		for i := range n {
			u := fmt.Sprintf("http://a.example/%d", i)
			if _, st, _ := decodeItem([]byte(u), tx.Bucket(bucketURLs).Get([]byte(u))); st != done {
				t.Errorf("%s: state %d after close, want done", u, st)
			}
		}
		return nil
	})
}
