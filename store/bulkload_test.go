package store

import (
	"path/filepath"
	"testing"
	"time"
)

// TestBulkLoad checks that batches are synced unless Options.BulkLoad asks otherwise, and that a
// bulk-loaded store holds its captures once closed.
func TestBulkLoad(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Options
		sync bool
	}{
		{"default", Options{}, true},
		{"bulk load", Options{BulkLoad: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			s := openTestStore(t, dir, tc.opt)
			if got := s.ix.Durable() && !s.w.noSync; got != tc.sync {
				t.Errorf("index synced per batch %v, WARC file %v; want %v", s.ix.Durable(), !s.w.noSync, tc.sync)
			}
			es := seal(t, s, capture("https://example.org/a", t0, "a"), capture("https://example.org/b", t0.Add(time.Second), "b"))
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			ps, err := Verify(t.Context(), dir)
			if err != nil || len(ps) != 0 {
				t.Fatalf("verify: %v %v", ps, err)
			}
			for _, e := range es {
				if _, ok, err := s.Index().Get(e.ID); !ok || err != nil {
					t.Errorf("capture %s is not in the index after Close: %v", e.URL, err)
				}
			}
		})
	}
}
