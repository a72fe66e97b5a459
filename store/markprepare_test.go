package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
)

func TestPrepareMark(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		commit bool
		bad    bool // a mark of an unknown id: PrepareMark fails
		want   CaptureState
	}{
		{"committed", true, false, Released},
		{"rolled back", false, false, Sealed},
		{"failed", false, true, Sealed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := openTestStore(t, t.TempDir(), Options{})
			defer s.Close()
			ix := s.Index()
			var caps []Capture
			for i := range 3 {
				c := capture(fmt.Sprintf("https://example.com/%d", i), t0.Add(time.Duration(i)*time.Second), fmt.Sprint(i))
				c.Period = embargo.None
				caps = append(caps, c)
			}
			es := seal(t, s, caps...)
			var marks []Mark
			for i, e := range es {
				marks = append(marks, Mark{ID: e.ID, State: Released, Public: Location{File: "shards/P.warc.gz", Offset: int64(i), Length: 1}, ReleaseAt: e.ReleaseAt})
			}
			if tc.bad {
				marks = append(marks, Mark{ID: "<urn:uuid:nope>", State: Released})
			}
			p, err := ix.PrepareMark(marks)
			if tc.bad {
				if err == nil {
					p.Rollback()
					t.Fatal("PrepareMark of an unknown id succeeded")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if tc.commit {
					err = p.Commit()
				} else {
					p.Rollback()
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			for _, e := range es { // the index is usable again, and holds what was committed
				got, ok, err := ix.Get(e.ID)
				if err != nil || !ok || got.State != tc.want {
					t.Errorf("%s: state %s (%v %v), want %s", e.ID, got.State, ok, err, tc.want)
				}
			}
			n, err := ix.Counts(t0)
			if err != nil {
				t.Fatal(err)
			}
			wantReleased, wantSealed := 0, len(es)
			if tc.want == Released {
				wantReleased, wantSealed = len(es), 0
			}
			if n.Released != wantReleased || n.Sealed != wantSealed {
				t.Errorf("counts %+v, want %d released, %d sealed", n, wantReleased, wantSealed)
			}
		})
	}
}
