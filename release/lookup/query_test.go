package lookup

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/release/public"
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

// TestStateByServerClock: a capture that a pass run with a future --now released is, until its
// release time on the server's clock, embargoed everywhere: in the API, on the page, for its record.
func TestStateByServerClock(t *testing.T) {
	t.Parallel()
	f := standard(t)
	f.release(public.CDXJ{URL: "https://example.com/early", Mime: "text/html", Status: 200, Digest: "sha256:ee", ID: "<urn:uuid:early>",
		Time: "2026-11-01T00:00:00Z", ReleaseAt: "2026-12-01T00:00:00Z"}, "text/html", "<p>early</p>")
	f.commit()
	for _, tc := range []struct {
		now   time.Time
		state string
		code  int
	}{{testNow, "embargoed", 403}, {time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), "released", 200}} {
		s := f.server(tc.now)
		var got capturesJSON
		decode(t, get(t, s, "/api/v1/captures?url=https://example.com/early").Body, &got)
		if len(got.Captures) != 1 || got.Captures[0].State != tc.state || (got.Captures[0].WARC != nil) != (tc.state == "released") {
			t.Errorf("clock %s: API %+v, want %s", tc.now, got.Captures, tc.state)
		}
		decode(t, get(t, s, "/api/v1/captures?matchType=prefix&url=https://example.com/early").Body, &got)
		if len(got.Captures) != 1 || got.Captures[0].State != tc.state {
			t.Errorf("clock %s: prefix API %+v, want %s", tc.now, got.Captures, tc.state)
		}
		if rec := get(t, s, "/api/v1/record?url=https://example.com/early"); rec.Code != tc.code {
			t.Errorf("clock %s: record status %d, want %d", tc.now, rec.Code, tc.code)
		}
		home := get(t, s, "/").Body.String()
		if strings.Contains(home, ">https://example.com/early</a>") != (tc.state == "released") {
			t.Errorf("clock %s: the home page's recent releases do not show the capture only once released", tc.now)
		}
		page := get(t, s, "/?url=https://example.com/early").Body.String()
		if !strings.Contains(page, `<span class="badge `+tc.state+`">`) || strings.Contains(page, "/api/v1/record") != (tc.state == "released") {
			t.Errorf("clock %s: the page does not show the capture %s with record links only once released", tc.now, tc.state)
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
