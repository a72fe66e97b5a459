package store

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
)

func TestMarkReleaseAtHints(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, t.TempDir(), Options{})
	defer s.Close()
	ix := s.Index()
	var caps []Capture
	for i := range 6 {
		c := capture(fmt.Sprintf("https://example.com/%d", i), t0.Add(time.Duration(i)*time.Second), fmt.Sprint(i))
		c.Period = embargo.Week
		caps = append(caps, c)
	}
	es := seal(t, s, caps...)
	pub := func(i int) Location { return Location{File: "tombstones/T.warc.gz", Offset: int64(i), Length: 1} }
	marks := []Mark{
		{ID: es[0].ID, State: Tombstoned, Public: pub(0), ReleaseAt: es[0].ReleaseAt},                // the right key
		{ID: es[1].ID, State: Tombstoned, Public: pub(1)},                                            // looked up by id
		{ID: es[2].ID, State: Tombstoned, Public: pub(2), ReleaseAt: es[2].ReleaseAt.Add(time.Hour)}, // a wrong key: looked up by id
		{ID: es[3].ID, State: Tombstoned, Public: pub(3), ReleaseAt: es[3].ReleaseAt},
		{ID: es[3].ID, State: Released, Public: pub(30), ReleaseAt: es[3].ReleaseAt}, // twice in one call: the later wins
		{ID: es[4].ID, State: Sealed, ReleaseAt: es[4].ReleaseAt},                    // no change
	}
	if err := ix.Mark(marks); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		state  CaptureState
		public Location
	}{{Tombstoned, pub(0)}, {Tombstoned, pub(1)}, {Tombstoned, pub(2)}, {Released, pub(30)}, {Sealed, Location{}}, {Sealed, Location{}}}
	for i, w := range want {
		e, ok, err := ix.Get(es[i].ID)
		if err != nil || !ok || e.State != w.state || e.Public != w.public {
			t.Errorf("capture %d: %v %v %+v, want %s at %+v", i, ok, err, e, w.state, w.public)
		}
	}
	if c, err := ix.Counts(t0); err != nil || c != (Counts{Sealed: 2, Tombstoned: 3, Released: 1}) {
		t.Errorf("counts %+v %v", c, err)
	}
	if err := ix.Mark([]Mark{{ID: es[5].ID, State: Released, ReleaseAt: es[5].ReleaseAt}, {ID: es[3].ID, State: Tombstoned, ReleaseAt: es[3].ReleaseAt}}); err == nil {
		t.Error("a released capture went back to tombstoned")
	}
	if e, _, _ := ix.Get(es[5].ID); e.State != Sealed {
		t.Error("a failed Mark call changed part of its batch")
	}
}

// TestMarkJSON keeps a Mark's JSON (the release journal holds marks) as it was before ReleaseAt.
func TestMarkJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Mark{ID: "x", State: Released, Public: Location{File: "f", Offset: 1, Length: 2}, ReleaseAt: t0})
	if want := `{"ID":"x","State":2,"Public":{"file":"f","offset":1,"length":2}}`; err != nil || string(b) != want {
		t.Errorf("%s %v, want %s", b, err, want)
	}
}
