package store

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
)

// TestSealRequisiteWaitsForPage: a requisite is public no earlier than the page whose body
// names it (docs/rules.md#d27). Of an embargoed page, it is withheld: its release time is the
// later of its own and its page's, it gets no tombstone (Embargoed skips it) until Due yields it,
// and its metadata record says so (embargo_source: requisite), so a rebuilt index keeps it.
func TestSealRequisiteWaitsForPage(t *testing.T) {
	t.Parallel()
	page := func(p embargo.Period) Capture {
		c := capture("https://news.example/story", t0, "<html>EMBSLUG</html>")
		c.Period = p
		return c
	}
	req := func(p embargo.Period, of Entry) Capture {
		c := capture("https://cdn.example/img/headline-EMBSLUG-minister-resigns.jpg", t0.Add(time.Second), "jpg")
		c.Period, c.RequisiteOf, c.RequisiteOfID = p, of.URL, of.ID
		return c
	}
	tests := []struct {
		name          string
		pagePeriod    embargo.Period
		reqPeriod     embargo.Period
		withheld      bool
		releaseAtPage bool // the requisite's release time is the page's
	}{
		{"embargoed page, requisite without embargo", embargo.Month, embargo.None, true, true},
		{"embargoed page, requisite with a shorter embargo", embargo.Quarter, embargo.Week, true, true},
		{"embargoed page, requisite with a longer embargo", embargo.Week, embargo.Quarter, true, false},
		{"page without embargo", embargo.None, embargo.None, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := openTestStore(t, dir, Options{})
			defer s.Close()
			pe := seal(t, s, page(tc.pagePeriod))[0]
			re := seal(t, s, req(tc.reqPeriod, pe))[0]
			own := embargo.ReleaseAt(time.Time{}, re.FirstSeen, tc.reqPeriod)
			want := own
			if tc.releaseAtPage {
				want = pe.ReleaseAt
			}
			if !re.ReleaseAt.Equal(want) || re.Withheld() != tc.withheld || re.Period != tc.reqPeriod {
				t.Errorf("requisite: release %s, withheld %v, period %s; want %s, %v, %s (page's release %s)",
					re.ReleaseAt, re.Withheld(), re.Period, want, tc.withheld, tc.reqPeriod, pe.ReleaseAt)
			}
			ix, err := OpenIndex(filepath.Join(dir, layout.IndexFile), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := ix.Get(re.ID)
			if err != nil || !ok || got.Withheld() != tc.withheld || !got.ReleaseAt.Equal(want) {
				t.Errorf("index entry %+v, %v, %v", got, ok, err)
			}
			tombstones := map[string]bool{}
			if err := ix.Embargoed(t0, func(e Entry) error { tombstones[e.ID] = true; return nil }); err != nil {
				t.Fatal(err)
			}
			if wantTomb := !tc.withheld && want.After(t0); tombstones[re.ID] != wantTomb {
				t.Errorf("the requisite needs a tombstone: %v, want %v", tombstones[re.ID], wantTomb)
			}
			if tombstones[pe.ID] != pe.ReleaseAt.After(t0) {
				t.Errorf("the page needs a tombstone: %v", tombstones[pe.ID])
			}
			due := func(at time.Time) bool {
				found := false
				if err := ix.Due(at, func(e Entry) error { found = found || e.ID == re.ID; return nil }); err != nil {
					t.Fatal(err)
				}
				return found
			}
			if due(want.Add(-time.Nanosecond)) || !due(want) {
				t.Errorf("the requisite is not due exactly at %s", want)
			}
			meta, err := ReadAt(filepath.Join(dir, layout.SealedDir), re.Metadata)
			if err != nil {
				t.Fatal(err)
			}
			defer meta.Close()
			f, err := parseFacts(readBlock(t, meta))
			if err != nil {
				t.Fatal(err)
			}
			if (f.EmbargoSource == SourceRequisite) != tc.withheld || !f.ReleaseAt.Equal(want) {
				t.Errorf("metadata: embargo_source %q, release_at %s", f.EmbargoSource, f.ReleaseAt)
			}
		})
	}
}

// TestSealRequisiteChain: a stylesheet withheld for its page withholds what it embeds in turn,
// and a revisit of a withheld requisite is withheld as its original.
func TestSealRequisiteChain(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir(), Options{})
	defer s.Close()
	pc := capture("https://news.example/story", t0, "<html>x</html>")
	pc.Period = embargo.Month
	page := seal(t, s, pc)[0]
	css := capture("https://cdn.example/s.css", t0.Add(time.Second), "@font-face{}")
	css.Period, css.RequisiteOf, css.RequisiteOfID = embargo.None, page.URL, page.ID
	sheet := seal(t, s, css)[0]
	font := capture("https://fonts.example/f.woff2", t0.Add(2*time.Second), "woff")
	font.Period, font.RequisiteOf, font.RequisiteOfID = embargo.None, sheet.URL, sheet.ID
	again := css
	again.Time, again.RequisiteOf, again.RequisiteOfID = t0.Add(time.Hour), "", ""
	es := seal(t, s, font, again)
	for _, e := range append([]Entry{sheet}, es...) {
		if !e.Withheld() || !e.ReleaseAt.Equal(page.ReleaseAt) {
			t.Errorf("%s (revisit %v): withheld %v, release %s; want true, %s", e.URL, e.Revisit, e.Withheld(), e.ReleaseAt, page.ReleaseAt)
		}
	}
}

// TestSealRequisiteOfAnotherNode: a requisite whose page is sealed on another crawl node (its id
// is not in this index) waits for the release time handed over with it; without one it keeps
// its own (docs/rules.md#d27).
func TestSealRequisiteOfAnotherNode(t *testing.T) {
	t.Parallel()
	later := t0.Add(90 * 24 * time.Hour)
	tests := []struct {
		name      string
		id        string
		pageAt    time.Time
		withheld  bool
		releaseAt time.Time // zero: its own
	}{
		{"page embargoed there", "<urn:uuid:elsewhere>", later, true, later},
		{"page public before the capture", "<urn:uuid:elsewhere>", t0, false, time.Time{}},
		{"page never sealed there, a bound handed over", "", later, true, later},
		{"nothing handed over", "<urn:uuid:elsewhere>", time.Time{}, false, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := openTestStore(t, t.TempDir(), Options{})
			defer s.Close()
			c := capture("https://cdn.example/img/EMBSLUG.jpg", t0.Add(time.Second), "jpg")
			c.Period = embargo.None // public at once but for its page
			c.RequisiteOf, c.RequisiteOfID, c.RequisiteOfReleaseAt = "https://news.example/story", tc.id, tc.pageAt
			e := seal(t, s, c)[0]
			want := tc.releaseAt
			if want.IsZero() {
				want = embargo.ReleaseAt(time.Time{}, e.FirstSeen, e.Period)
			}
			if !e.ReleaseAt.Equal(want) || e.Withheld() != tc.withheld {
				t.Errorf("release %s, withheld %v; want %s, %v", e.ReleaseAt, e.Withheld(), want, tc.withheld)
			}
		})
	}
}
