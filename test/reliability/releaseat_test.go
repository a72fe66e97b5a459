package reliability

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/lookup"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// TestPublicReleaseTimeNotEarly checks that the release time the public side states for an
// embargoed capture (CDXJ release_at, the API's release_at) is never before the capture's true
// release time: a person or a script that comes back at the stated instant must find it released.
//
// TestPublicReleaseTimeNotEarly: the public release_at is the exact release time (RFC 3339 with
// nanoseconds). It caught a bug, now fixed: written to the second, it could state a time up to
// 1 s before the true one, at which a pass would still tombstone the capture.
func TestPublicReleaseTimeNotEarly(t *testing.T) {
	t.Parallel()
	dir := memDir(t)
	at := t0.Add(500 * time.Millisecond)
	c := &capture{url: "https://example.com/sub-second", time: at, period: embargo.Week, body: []byte("<p>" + markerPrefix + "0000000000000000</p>")}
	s, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	es, err := s.Seal(context.Background(), []store.Capture{c.storeCapture()})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	truth := es[0].ReleaseAt
	if _, err := release.New(dir, release.Options{Logger: testkit.QuietLogger()}).Pass(context.Background(), at); err != nil {
		t.Fatal(err)
	}
	srv, err := lookup.Open(filepath.Join(dir, "public"), lookup.Options{Logger: testkit.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	code, b := get(t, srv, "/api/v1/captures?url="+url.QueryEscape(c.url))
	var ans struct {
		Captures []struct {
			ReleaseAt time.Time `json:"release_at"`
		} `json:"captures"`
	}
	if code != http.StatusOK || json.Unmarshal(b, &ans) != nil || len(ans.Captures) != 1 {
		t.Fatalf("%d %s", code, b)
	}
	if stated := ans.Captures[0].ReleaseAt; stated.Before(truth) {
		t.Errorf("the API states release_at %s, before the true release time %s: a pass at the stated instant still keeps it embargoed",
			stated.Format(time.RFC3339Nano), truth.Format(time.RFC3339Nano))
	}
}
