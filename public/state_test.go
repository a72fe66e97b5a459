package public

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
)

func TestStatusRoundTrip(t *testing.T) {
	t.Parallel()
	next := time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC)
	s := Status{Generation: 3, LastPass: time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC), NextRelease: &next,
		Released: 10, Tombstoned: 4, Software: "archivectl-test"}
	b, err := MarshalStatus(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "generation": 3,
  "last_pass": "2026-11-29T20:00:00Z",
  "next_release": "2026-12-06T20:00:00Z",
  "released": 10,
  "tombstoned": 4,
  "software": "archivectl-test"
}
`
	if string(b) != want {
		t.Errorf("MarshalStatus =\n%s\nwant\n%s", b, want)
	}
	got, err := ReadStatus(fstest.MapFS{layout.StateFile: {Data: b}})
	if err != nil || got.Generation != 3 || !got.LastPass.Equal(s.LastPass) || got.NextRelease == nil || !got.NextRelease.Equal(next) {
		t.Errorf("ReadStatus = %+v, %v", got, err)
	}
}

func TestReadState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fsys    fstest.MapFS
		gen     int64
		wantErr string
	}{
		{"missing is generation 0", fstest.MapFS{}, 0, ""},
		{"no pass yet", fstest.MapFS{layout.StateFile: {Data: []byte(`{"generation": 0, "last_pass": null, "next_release": null}`)}}, 0, ""},
		{"damaged", fstest.MapFS{layout.StateFile: {Data: []byte(`{half a file`)}}, 0, "public/state.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := ReadStatus(tc.fsys)
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("err = %v, want one naming %q", err, tc.wantErr)
			case tc.wantErr == "" && err != nil:
				t.Errorf("err = %v", err)
			case tc.wantErr == "" && (s.Generation != tc.gen || !s.LastPass.IsZero()):
				t.Errorf("state = %+v", s)
			}
		})
	}
}
