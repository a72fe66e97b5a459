package crawler

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
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
			sum, _, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, o.URL+"/")}, a)
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
