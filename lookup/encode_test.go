package lookup

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/aipref"
	"github.com/archivectl/archivectl/public"
)

// reference renders a capture through encoding/json: what the hand encoder must match.
func reference(c *capture) captureJSON {
	j := captureJSON{
		URL: c.url(), Timestamp: formatTime(c.time), Status: int(c.status), State: public.StateEmbargoed,
		ReleaseAt: formatTime(c.releaseAt), EmbargoSource: c.embargoSource, PayloadDigest: c.digest(), Mime: c.mime,
		ContentUsage: c.contentUsage(), Revisit: c.revisit, Usage: map[string]string{}, Due: c.due,
	}
	for _, cat := range aipref.Vocabulary() {
		j.Usage[cat.Label] = "unknown"
	}
	for _, u := range c.usage {
		if k, v, _ := strings.Cut(u, "="); j.Usage[k] != "" {
			j.Usage[k] = map[string]string{"y": "allow", "n": "disallow"}[v]
		}
	}
	if h := c.headers(); h != "" {
		j.Headers = json.RawMessage(h)
	}
	if j.ContentUsage == nil {
		j.ContentUsage = []string{}
	}
	if c.released {
		j.State = public.StateReleased
		j.WARC = &warcJSON{File: c.file, Offset: c.offset, Length: c.length}
	}
	return j
}

func TestEncodeMatchesJSON(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	cs, _, err := s.ix.Load().prefix(matcher{}, cursor{}, 1000)
	if err != nil || len(cs) < 30 {
		t.Fatalf("the fixture's captures: %d, %v", len(cs), err)
	}
	tests := []struct {
		name, url, matchType, next string
		cs                         []capture
	}{
		{"every fixture capture", "https://example.com/", "prefix", "abc", cs},
		{"every fixture capture, due ones marked a year on", "https://example.com/", "prefix", "", markDue(slices.Clone(cs), testNow.AddDate(1, 0, 0))},
		{"one embargoed", "https://example.com/a", "", "", cs[:1]},
		{"none", "https://example.com/<&>", "prefix", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := capturesJSON{URL: tc.url, MatchType: tc.matchType, NextCursor: tc.next, Captures: []captureJSON{}}
			for i := range tc.cs {
				want.Captures = append(want.Captures, reference(&tc.cs[i]))
			}
			wantJSON, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			got := appendCaptures(nil, tc.url, tc.matchType, tc.cs, tc.next)
			var a, b any
			if err := json.Unmarshal(got, &a); err != nil {
				t.Fatalf("hand-encoded answer is not JSON: %v\n%s", err, got)
			}
			json.Unmarshal(wantJSON, &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("hand encoder:\n%s\nencoding/json:\n%s", got, wantJSON)
			}
		})
	}
}
