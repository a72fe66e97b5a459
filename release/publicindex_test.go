package release

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/public/pubindex"
)

// Every commit of a pass adds its lines to the public index: after passes of several commits,
// the index holds exactly the CDXJ lines, with totals that count each capture once.
func TestPassesKeepTheIndex(t *testing.T) {
	old := maxBatch
	maxBatch = 5
	t.Cleanup(func() { maxBatch = old })
	a := buildArchive(t, t.TempDir(), 40)
	r := newTestReleaser(a.dir)
	for _, days := range []int{0, 8, 32, 91} {
		mustPass(t, r, t0.Add(time.Duration(days)*24*time.Hour))
		mustVerify(t, a.dir)
	}
	m, found, err := pubindex.ReadManifest(os.DirFS(layout.Public(a.dir)))
	if err != nil || !found {
		t.Fatalf("manifest: %v, found %v", err, found)
	}
	st, _ := readStatus(a.dir)
	if m.Generation != st.Generation || m.Stats.Released != 40 || m.Stats.Embargoed != 0 {
		t.Errorf("manifest generation %d (state %d), %d released, %d embargoed; want all 40 released",
			m.Generation, st.Generation, m.Stats.Released, m.Stats.Embargoed)
	}
	if n := len(m.Segments); n > 3*4 {
		t.Errorf("%d segments after %d commits: the tier rule does not merge", n, st.Generation)
	}
}

// A public side without its index (written by an earlier version), with a damaged one, or with
// one of another generation, gets it rebuilt by the next pass, which then commits to it.
func TestPassRebuildsTheIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		damage func(t *testing.T, pub string)
	}{
		{"missing", func(t *testing.T, pub string) { os.RemoveAll(filepath.Join(pub, pubindex.Dir)) }},
		{"torn segment", func(t *testing.T, pub string) {
			m, _, _ := pubindex.ReadManifest(os.DirFS(pub))
			os.Truncate(filepath.Join(pub, pubindex.Dir, m.Segments[0].Name), 10)
		}},
		{"older generation", func(t *testing.T, pub string) {
			m, _, _ := pubindex.ReadManifest(os.DirFS(pub))
			m.Generation--
			pubindex.WriteManifest(pub, m)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := buildArchive(t, t.TempDir(), 16)
			r := newTestReleaser(a.dir)
			mustPass(t, r, t0.Add(8*24*time.Hour))
			pub := layout.Public(a.dir)
			tc.damage(t, pub)
			problems, err := Verify(context.Background(), a.dir)
			if err != nil || len(problems) == 0 {
				t.Fatalf("Verify of a %s index: %v, %q", tc.name, err, problems)
			}
			if !strings.Contains(strings.Join(problems, "\n"), "archivectl reindex-public") {
				t.Errorf("Verify does not name the rebuild command: %q", problems)
			}
			mustPass(t, r, t0.Add(32*24*time.Hour))
			mustVerify(t, a.dir)
		})
	}
}

func TestRebuildIndexCommand(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 16)
	r := newTestReleaser(a.dir)
	mustPass(t, r, t0.Add(8*24*time.Hour))
	before, _, _ := pubindex.ReadManifest(os.DirFS(layout.Public(a.dir)))
	m, err := RebuildIndex(context.Background(), a.dir, Options{Logger: testkit.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if m.Stats.Released != before.Stats.Released || m.Stats.Embargoed != before.Stats.Embargoed || len(m.Segments) != 1 {
		t.Errorf("rebuilt %+v, before %+v", m, before)
	}
	mustVerify(t, a.dir)
}
