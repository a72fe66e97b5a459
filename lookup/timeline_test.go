package lookup

import (
	"net/url"
	"testing"

	"github.com/archivectl/archivectl/public"
)

// TestTimelinePage: the timeline of a URL groups its captures by year, month and day, marks each
// state, and links each capture to its card (and a released one to its record); the card links
// to the timeline.
func TestTimelinePage(t *testing.T) {
	t.Parallel()
	f := standard(t)
	// A capture due (its release time passed, no pass has released it) and two in one second.
	for _, id := range []string{"<urn:uuid:d1>", "<urn:uuid:d2>"} {
		f.tombstone(public.CDXJ{URL: "https://example.com/a", Status: 200, Digest: "sha256:ab", ID: id,
			Time: "2025-03-04T05:06:07Z", ReleaseAt: "2026-11-29T12:00:00Z"})
	}
	f.commit()
	s := f.server(testNow)
	a := url.QueryEscape("https://example.com/a")
	tests := []struct {
		name, target string
		code         int
		want, not    []string
	}{
		{"every capture by day", "/?view=timeline&url=" + a, 200, []string{
			`<h1 class="what">Timeline of <span class="url">https://example.com/a</span></h1>`,
			"4 captures: 1 released, 3 under embargo (2 due, waiting for the next release pass)",
			`<h2 id="y2026"><time datetime="2026">2026</time> <small>2 captures</small></h2>`,
			`<h3 id="m2026-11"><time datetime="2026-11">November 2026</time> <small>1 capture</small></h3>`,
			`<time class="tl-day" datetime="2026-11-29">Sun 29 Nov</time>`,
			`<h2 id="y2025"><time datetime="2025">2025</time> <small>2 captures</small></h2>`,
			`<a href="/?url=https%3A%2F%2Fexample.com%2Fa#c20261129200000"><time datetime="2026-11-29T20:00:00Z">20:00:00 UTC</time></a>`,
			`embargoed until <time datetime="2027-02-27T20:00:00Z">2027-02-27 20:00:00 UTC</time>, <span class="countdown">in 89 days 23 hours</span>`,
			`#c20250304050607"`, `#c20250304050607-2"`, `<span class="badge due">due</span>`,
			`public since <time datetime="2026-11-29T00:00:00Z">2026-11-29 00:00:00 UTC</time> · embargo ended <time datetime="2026-08-08T10:00:00Z">`,
			`<a href="/api/v1/record?url=https%3A%2F%2Fexample.com%2Fa&amp;timestamp=20260801100000">WARC record</a>`,
		}, []string{"Release calendar", `<article class="capture`}},
		{"the card links to it and names its captures", "/?url=" + a, 200, []string{
			`<a href="/?view=timeline&amp;url=https%3A%2F%2Fexample.com%2Fa">Timeline: every capture of this URL by day</a>`,
			`<article class="capture embargoed" id="c20261129200000">`, `id="c20250304050607-2"`,
			`<dt>Embargo ends</dt><dd><time datetime="2027-02-27T20:00:00Z">`, `<dt>Embargo ended</dt>`, `<dt>Public since</dt>`,
		}, nil},
		{"a URL never made public", "/?view=timeline&url=https://example.com/nothing", 404, []string{"has never been made public", "Never made public</h1>"}, []string{"Timeline of"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := get(t, s, tc.target)
			if rec.Code != tc.code {
				t.Fatalf("status %d, want %d", rec.Code, tc.code)
			}
			checkPage(t, rec.Body.String(), tc.want, tc.not)
		})
	}
}
