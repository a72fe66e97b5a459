package lookup

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/public"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// TestQueryErrors: a url that does not decode or does not parse is named as an invalid URL,
// never reported missing; a port outside 1..65535 is a bad request, not an unknown URL.
func TestQueryErrors(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	tests := []struct {
		name, query string
		code        int
		want        string
	}{
		{"bad escape in the url", "url=http://a.com/%zz", 400, `the url parameter is not a valid URL: \"http://a.com/%zz\" is not valid percent-encoding`},
		{"bad escape after decoding", "url=" + url.QueryEscape("http://a.com/%zz"), 400, `\"http://a.com/%zz\" is not a valid URL (invalid URL escape \"%zz\")`},
		{"semicolon", "url=https://example.com/a;b", 400, "the url parameter is not a valid URL"},
		{"bad escape in another parameter", "url=https://example.com/a&cursor=%zz", 400, `the cursor parameter \"%zz\" is not valid percent-encoding`},
		{"port too large", "url=http://example.com:99999/a", 400, `has port 99999, which is not a port from 1 to 65535`},
		{"port zero", "url=http://example.com:0/a", 400, "has port 0"},
		{"a real port", "url=http://example.com:8080/a", 404, "has never been made public"},
		{"missing", "limit=5", 400, "the url parameter is missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, path := range []string{"/api/v1/captures?", "/api/v1/record?", "/?"} {
				rec := get(t, s, path+tc.query)
				want := tc.want
				if path == "/?" {
					want = strings.ReplaceAll(strings.ReplaceAll(want, `\"`, "&#34;"), "", "")
					if tc.name == "missing" {
						continue // the page without a url is the home page
					}
				}
				if rec.Code != tc.code || !strings.Contains(rec.Body.String(), want) {
					t.Errorf("%s%s: status %d, body %.300s; want %d with %q", path, tc.query, rec.Code, rec.Body, tc.code, want)
				}
			}
		})
	}
}

// TestStateIsWhatIsPublic: a capture's state is what the public side holds, whatever the
// server's clock says. A capture with a released line (here beside its tombstone, as a pass run
// with a future --now leaves it) is released in every view, its record served, before its
// release time on the server's clock as after; a capture with only a tombstone is embargoed,
// and once its release time has passed on the server's clock it is due (the API's "due", the
// card's badge, the counts), waiting for the next pass.
func TestStateIsWhatIsPublic(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	early := public.CDXJ{URL: "https://example.com/early", Mime: "text/html", Status: 200, Digest: "sha256:ee", ID: "<urn:uuid:early>",
		Time: "2026-11-01T00:00:00Z", ReleaseAt: "2026-12-01T00:00:00Z"}
	f.tombstone(early)
	f.release(early, "text/html", "<p>early</p>")
	f.tombstone(public.CDXJ{URL: "https://example.com/due", Mime: "text/html", Status: 200, Digest: "sha256:dd", ID: "<urn:uuid:due>",
		Time: "2026-11-13T00:00:00Z", ReleaseAt: "2026-11-20T00:00:00Z"})
	f.tombstone(public.CDXJ{URL: "https://example.com/later", Mime: "text/html", Status: 200, Digest: "sha256:ll", ID: "<urn:uuid:later>",
		Time: "2026-11-03T00:00:00Z", ReleaseAt: "2026-12-03T00:00:00Z"})
	f.commit()
	type want struct {
		state string
		due   bool
		code  int // of /api/v1/record
	}
	released, embargoed, due := want{"released", false, 200}, want{"embargoed", false, 451}, want{"embargoed", true, 451}
	for _, tc := range []struct {
		name  string
		clock time.Time
		want  map[string]want // by URL path
		due   int             // captures counted due (release day before today)
	}{
		{"before early's release time", testNow, map[string]want{"early": released, "due": due, "later": embargoed}, 1},
		{"after it", time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), map[string]want{"early": released, "due": due, "later": embargoed}, 1},
		{"after later's", time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC), map[string]want{"early": released, "due": due, "later": due}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := f.server(tc.clock)
			for path, w := range tc.want {
				u := "https://example.com/" + path
				for _, q := range []string{"/api/v1/captures?url=" + u, "/api/v1/captures?matchType=prefix&url=" + u} {
					var got capturesJSON
					decode(t, get(t, s, q).Body, &got)
					if len(got.Captures) != 1 || got.Captures[0].State != w.state || got.Captures[0].Due != w.due ||
						(got.Captures[0].WARC != nil) != (w.state == "released") {
						t.Errorf("%s: %+v, want state %s, due %v", q, got.Captures, w.state, w.due)
					}
				}
				if rec := get(t, s, "/api/v1/record?format=payload&url="+u); rec.Code != w.code {
					t.Errorf("%s: record status %d, want %d", path, rec.Code, w.code)
				}
				page := get(t, s, "/?url="+u).Body.String()
				if !strings.Contains(page, `<span class="badge `+w.state+`">`) || strings.Contains(page, `<span class="badge due">`) != w.due ||
					strings.Contains(page, "/api/v1/record") != (w.state == "released") || strings.Contains(page, "Due, waiting for the next release pass") != w.due {
					t.Errorf("%s: the card does not show it %s (due %v) with record links only when released", path, w.state, w.due)
				}
				browse := get(t, s, "/?matchType=prefix&url="+u).Body.String()
				if !strings.Contains(browse, `<span class="badge `+w.state+`">`) || strings.Contains(browse, `<span class="badge due">`) != w.due {
					t.Errorf("%s: the prefix list does not show it %s (due %v)", path, w.state, w.due)
				}
			}
			home := get(t, s, "/").Body.String()
			for _, want := range []string{
				">https://example.com/early</a>", // recently released, whatever the clock
				"<strong>1</strong><small>capture, public byte for byte",
				"<strong>2</strong><small>captures: tombstones only; " + itoa(tc.due) + " due, waiting for the next release pass",
				`since <a href="/?day=2026-11-20">`, // the next releases list keeps the overdue day
				">Fri 20 Nov 2026</time>",
			} {
				if !strings.Contains(home, want) {
					t.Errorf("home page lacks %q", want)
				}
			}
			var cal calendarJSON
			decode(t, get(t, s, "/api/v1/calendar").Body, &cal)
			sum := cal.Due
			for _, d := range cal.Days {
				sum += d.Captures
			}
			if cal.Released != 1 || cal.Embargoed != 2 || cal.Due != tc.due || sum != cal.Embargoed {
				t.Errorf("calendar %+v: want 1 released, 2 embargoed, %d due, every embargoed capture on a day or due", cal, tc.due)
			}
			if svg := get(t, s, "/calendar.svg").Body.String(); !strings.Contains(svg, plural(tc.due, "capture")+" past their release day, waiting for the next release pass") {
				t.Errorf("calendar.svg does not count the due captures: %s", svg)
			}
			if strings.Contains(home, "ahead of the clock") {
				t.Errorf("the home page says the last pass ran ahead of its clock; state.json does not")
			}
		})
	}

	// A pass ahead of its machine's clock says so (state.json's ahead_of_clock), in one line on every page.
	f.write("state.json", []byte(`{"generation": 1, "last_pass": "2026-12-08T00:00:00Z", "next_release": null, "released": 1, "tombstoned": 3, "ahead_of_clock": true}`))
	s := f.server(testNow)
	for _, q := range []string{"/", "/?url=https://example.com/early"} {
		page := get(t, s, q).Body.String()
		if n := strings.Count(page, "ahead of the clock of the machine that ran it"); n != 1 || !strings.Contains(page, "8 days 3 hours ahead of this server") {
			t.Errorf("%s: %d lines saying the last pass ran ahead of its clock, want 1 saying by how much", q, n)
		}
		if !strings.Contains(page, `ran as of <time datetime="2026-12-08T00:00:00Z">8 Dec 2026 00:00 UTC</time>`) {
			t.Errorf("%s: the pass's time is not a <time> element", q)
		}
	}
}

// TestReleaseMetricsFromState: with ReleaseMetrics, /metrics carries the release metrics that
// state.json answers, under the names the release daemon uses.
func TestReleaseMetricsFromState(t *testing.T) {
	t.Parallel()
	f := standard(t)
	for _, on := range []bool{true, false} {
		reg := prometheus.NewRegistry()
		s, err := Open(f.dir, Options{Now: func() time.Time { return testNow }, Logger: discard, Registerer: reg,
			Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReleaseMetrics: on})
		if err != nil {
			t.Fatal(err)
		}
		body := get(t, s, "/metrics").Body.String()
		for _, want := range []string{
			"archivectl_release_last_pass_timestamp_seconds 1.795986e+09", // 2026-11-29T21:00:00Z
			"archivectl_release_next_release_timestamp_seconds 0",
			"archivectl_release_captures_released_total 3",
			"archivectl_release_captures_tombstoned_total 28",
			"# TYPE archivectl_release_captures_released_total counter",
		} {
			if strings.Contains(body, want) != on {
				t.Errorf("ReleaseMetrics %v: /metrics has %q: %v", on, want, !on)
			}
		}
	}
}
