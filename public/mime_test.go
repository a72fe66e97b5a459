package public

import (
	"encoding/json"
	"testing"
	"time"
)

// TestWireMime: a line says the drop-in mime (warc/revisit for a revisit, unk for none), and
// carries a revisit's media type in payload_mime; ParseLine gives the capture's media type back,
// from lines of this version and of earlier ones alike.
func TestWireMime(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	base := CDXJ{URL: "https://example.com/a", Status: 200, Digest: "sha256:ab", Filename: "PUBLIC-20261129200000-00001.warc.gz",
		ReleaseAt: "2026-12-06T20:00:00Z", ID: "<urn:uuid:1>", State: StateReleased, Time: "2026-11-29T20:00:00Z"}
	tests := []struct {
		name             string
		mime             string
		revisit          bool
		wire, payload    string // what the line's JSON says
		wantParsedMime   string
		earlierVersionJS string // a line of an earlier version for the same capture, "" for none
	}{
		{"response", "text/html", false, "text/html", "", "text/html", ""},
		{"response without a type", "", false, UnknownMime, "", "", `{"url":"https://example.com/a","status":200,"digest":"sha256:ab","length":0,"offset":0,"filename":"P.warc.gz","release_at":"2026-12-06T20:00:00Z","id":"<urn:uuid:1>","state":"released","time":"2026-11-29T20:00:00Z"}`},
		{"revisit", "image/png", true, RevisitMime, "image/png", "image/png", `{"url":"https://example.com/a","mime":"image/png","status":200,"digest":"sha256:ab","length":0,"offset":0,"filename":"P.warc.gz","release_at":"2026-12-06T20:00:00Z","id":"<urn:uuid:1>","state":"released","time":"2026-11-29T20:00:00Z","revisit":true}`},
		{"revisit without a type", "", true, RevisitMime, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := base
			c.Mime, c.Revisit = tc.mime, tc.revisit
			for _, fast := range []bool{true, false} {
				var b []byte
				var err error
				if fast {
					b, err = FormatLine("com,example)/a", at, c)
				} else {
					b, err = formatLineSlow("com,example)/a", at, c)
				}
				if err != nil {
					t.Fatal(err)
				}
				var js map[string]any
				if err := json.Unmarshal(b[len("com,example)/a 20261129200000 "):], &js); err != nil {
					t.Fatal(err)
				}
				if js["mime"] != tc.wire || (tc.payload != "") != (js["payload_mime"] != nil) || tc.payload != "" && js["payload_mime"] != tc.payload {
					t.Errorf("fast %v: line %s: want mime %q, payload_mime %q", fast, b, tc.wire, tc.payload)
				}
				l, err := ParseLine(b)
				if err != nil {
					t.Fatal(err)
				}
				if l.Mime != tc.wantParsedMime || l.PayloadMime != "" {
					t.Errorf("fast %v: parsed mime %q, payload_mime %q; want %q and none", fast, l.Mime, l.PayloadMime, tc.wantParsedMime)
				}
				if again, err := FormatLine(l.SURT, at, l.CDXJ); err != nil || string(again) != string(b) {
					t.Errorf("fast %v: formatted again\n%s\nwant\n%s (%v)", fast, again, b, err)
				}
			}
			if tc.earlierVersionJS != "" {
				l, err := ParseLine([]byte("com,example)/a 20261129200000 " + tc.earlierVersionJS))
				if err != nil || l.Mime != tc.wantParsedMime {
					t.Errorf("earlier line: mime %q (%v), want %q", l.Mime, err, tc.wantParsedMime)
				}
			}
		})
	}
}

// formatLineSlow is FormatLine through json.Marshal, the path fastCDXJ replaces.
func formatLineSlow(surt string, t time.Time, c CDXJ) ([]byte, error) {
	c = c.wire()
	js, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return append(append([]byte(surt+" "+t.UTC().Format(Timestamp14)+" "), js...), '\n'), nil
}
