package store

import (
	"context"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
)

// TestSealResource: a page's rendered DOM and screenshot are sealed as resource records (no
// request, WARC-Concurrent-To the page), withheld until the page's own release time (no
// tombstone), and Verify finds the index and the records agreeing, before and after Reindex.
func TestSealResource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStore(t, dir, Options{})
	pc := capture("https://news.example/story", t0, "<html>EMBSLUG</html>")
	pc.Period = embargo.Week
	page := seal(t, s, pc)[0]
	res := func(kind, ctype, body string) Capture {
		return Capture{URL: ResourceURI(kind, pc.URL), Time: t0.Add(2 * time.Second), Response: []byte(body),
			Resource: ctype, RequisiteOf: pc.URL, RequisiteOfID: page.ID, LoadedBy: LoadedByBrowser}
	}
	got := seal(t, s, res(ResourceDOM, "text/html; charset=utf-8", "<html><p>rendered EMBSLUG</p></html>"), res(ResourceView, "image/png", "\x89PNG\r\n\x1a\nview"))
	for i, e := range got {
		if !e.ReleaseAt.Equal(page.ReleaseAt) || !e.Withheld() || e.Request != (Location{}) || e.Status != 0 {
			t.Errorf("resource %d: %+v; want released with its page at %s, withheld, no request", i, e, page.ReleaseAt)
		}
	}
	if got[0].Mime != "text/html; charset=utf-8" || got[1].Mime != "image/png" || got[0].SURT != "urn:dom:https://news.example/story" {
		t.Errorf("mime %q, %q, key %q", got[0].Mime, got[1].Mime, got[0].SURT)
	}
	var tombs []string
	if err := s.Index().Embargoed(t0, func(e Entry) error { tombs = append(tombs, e.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(tombs) != 1 || tombs[0] != pc.URL {
		t.Errorf("tombstones for %v, want the page's alone", tombs)
	}
	for _, bad := range []Capture{
		{URL: "urn:dom:" + pc.URL, Time: t0, Response: []byte("x"), Resource: "text/html"},                                                  // no page
		{URL: "https://news.example/story", Time: t0, Response: []byte("x"), Resource: "text/html", RequisiteOfID: page.ID},                 // not a resource URI
		{URL: "urn:other:" + pc.URL, Time: t0, Response: []byte("x"), Resource: "text/html", RequisiteOfID: page.ID},                        // unknown kind
		{URL: "urn:view:" + pc.URL, Time: t0, Request: []byte("GET"), Response: []byte("x"), Resource: "image/png", RequisiteOfID: page.ID}, // a request
	} {
		if _, err := s.Seal(context.Background(), []Capture{bad}); err == nil {
			t.Errorf("sealed %s (%+v)", bad.URL, bad)
		}
	}
	s.Close()
	problems, err := Verify(context.Background(), dir)
	if err != nil || len(problems) > 0 {
		t.Fatalf("verify: %v %v", problems, err)
	}
	if _, err := Reindex(context.Background(), dir); err != nil {
		t.Fatalf("reindex: %v", err)
	}
	if problems, err := Verify(context.Background(), dir); err != nil || len(problems) > 0 {
		t.Fatalf("verify after reindex: %v %v", problems, err)
	}
}
