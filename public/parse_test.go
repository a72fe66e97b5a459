package public

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// releaserLines are CDXJ lines as the releaser writes them: released and tombstone lines with
// escaped ids, usage and header fields.
func releaserLines(tb testing.TB, n int) [][]byte {
	tb.Helper()
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var out [][]byte
	for i := range n {
		u := fmt.Sprintf("https://www.host%04d.example/section/%d/page-%d.html", i%5000, i/5000%50, i)
		c := CDXJ{URL: u, Mime: "text/html", Status: 200, Digest: fmt.Sprintf("sha256:%064x", i), Length: 850, Offset: int64(i) * 900,
			Filename: "shards/PUBLIC-20261129210000-00001.warc.gz", Usage: []string{"train-ai=n", "search=y"},
			ReleaseAt: at.Add(7 * 24 * time.Hour).Format(time.RFC3339Nano), ID: fmt.Sprintf("<urn:uuid:%032x>", i),
			State: StateReleased, Time: at.Format(time.RFC3339Nano)}
		if i%2 == 1 {
			c.State, c.Filename = StateEmbargoed, "tombstones/TOMBSTONES-20261129210000-00001.warc.gz"
			c.Headers = [][2]string{{"Content-Type", "text/html; charset=utf-8"}, {"Content-Length", "48213"}, {"Server", "nginx"}}
		}
		b, err := FormatLine(fmt.Sprintf("example,host%04d)/section/%d/page-%d.html", i%5000, i/5000%50, i), at, c)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func TestParseViews(t *testing.T) {
	t.Parallel()
	lines := releaserLines(t, 2)
	r, err := Parse(lines[1])
	if err != nil {
		t.Fatal(err)
	}
	f := &r.Block
	checks := []struct{ name, got, want string }{
		{"key", string(r.Key), "example,host0001)/section/0/page-1.html"},
		{"timestamp", string(r.Timestamp), "20260601000000"},
		{"url", string(f.URL), "https://www.host0001.example/section/0/page-1.html"},
		{"state", string(f.State), StateEmbargoed},
		{"usage", string(f.Usage), `["train-ai=n","search=y"]`},
		{"headers", string(f.Headers), `[["Content-Type","text/html; charset=utf-8"],["Content-Length","48213"],["Server","nginx"]]`},
		{"id, still escaped", string(f.ID), `\u003curn:uuid:00000000000000000000000000000001\u003e`},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if id, err := f.AppendID(nil); err != nil || string(id) != "<urn:uuid:00000000000000000000000000000001>" {
		t.Errorf("AppendID = %q, %v", id, err)
	}
	if want := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC); r.Time != want.UnixNano() || r.ReleaseAt != want.Add(7*24*time.Hour).UnixNano() {
		t.Errorf("times %d, %d", r.Time, r.ReleaseAt)
	}
	if !bytes.Contains(lines[1], r.Key) || &r.Key[0] != &lines[1][0] {
		t.Error("the key is not a view into the line")
	}
}

// TestParseDoesNotAllocate: the releaser's lines take the fast path, which allocates nothing.
func TestParseDoesNotAllocate(t *testing.T) {
	lines := releaserLines(t, 2)
	for _, l := range lines {
		if n := testing.AllocsPerRun(100, func() {
			if _, err := Parse(l); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("Parse(%.60s…) allocates %v times", l, n)
		}
	}
}

// BenchmarkParse parses lines as the releaser writes them, half released, half tombstones.
func BenchmarkParse(b *testing.B) {
	lines := releaserLines(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, err := Parse(l); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}

// TestParseStates: the states a line may have, the earlier versions' tombstone state included.
func TestParseStates(t *testing.T) {
	t.Parallel()
	for state, ok := range map[string]bool{StateReleased: true, StateTombstone: true, StateEmbargoed: true, "": false, "due": false, "Released": false} {
		line := `com,example)/ 20260301120000 {"url":"https://example.com/","digest":"","length":0,"offset":0,"filename":"PUBLIC-20260301120000-00001.warc.gz",` +
			`"release_at":"2026-03-01T12:00:00Z","id":"x","state":"` + state + `","time":"2026-03-01T12:00:00Z"}`
		if _, err := ParseLine([]byte(line)); (err == nil) != ok {
			t.Errorf("state %q: error %v, want accepted %v", state, err, ok)
		}
	}
}
