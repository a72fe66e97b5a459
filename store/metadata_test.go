package store

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/warcfields"
	"github.com/nlnwa/gowarc/v3"
)

// TestMetadataProvenance seals a requisite, a page listed in a sitemap and a plain page, and
// reads their metadata records back: the provenance fields are there when set and absent
// when not, so that a capture without them writes the record it always wrote.
func TestMetadataProvenance(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStore(t, dir, Options{})
	defer s.Close()
	req := capture("https://cdn.example/i.png", t0, "png")
	req.RequisiteOf, req.RequisiteOfID, req.EmbargoSource = "https://example.com/a", "<urn:uuid:page>", "header"
	listed := capture("https://example.com/b", t0, "<html>b</html>")
	listed.Sitemap, listed.SitemapLastmod = "https://example.com/sitemap.xml", "2026-02-01"
	plain := capture("https://example.com/c", t0, "<html>c</html>")
	es := seal(t, s, req, listed, plain)
	tests := []struct {
		name   string
		entry  Entry
		want   facts
		absent []string // fields the record must not hold
	}{
		{"requisite", es[0], facts{RequisiteOf: req.RequisiteOf, RequisiteOfID: req.RequisiteOfID, EmbargoSource: "header"}, []string{"sitemap"}},
		{"sitemap page", es[1], facts{Sitemap: listed.Sitemap, SitemapLastmod: "2026-02-01"}, []string{"requisite_of", "embargo_source"}},
		{"plain page", es[2], facts{}, []string{"requisite_of", "requisite_of_id", "sitemap", "sitemap_lastmod", "embargo_source"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			meta, err := ReadAt(filepath.Join(dir, layout.SealedDir), tc.entry.Metadata)
			if err != nil {
				t.Fatal(err)
			}
			defer meta.Close()
			if ct := meta.WarcHeader().Get(gowarc.ContentType); ct != gowarc.ApplicationWarcFields {
				t.Errorf("metadata record of type %q", ct)
			}
			raw := readBlock(t, meta)
			f, err := parseFacts(raw)
			if err != nil {
				t.Fatal(err)
			}
			if f.RequisiteOf != tc.want.RequisiteOf || f.RequisiteOfID != tc.want.RequisiteOfID || f.Sitemap != tc.want.Sitemap ||
				f.SitemapLastmod != tc.want.SitemapLastmod || f.EmbargoSource != tc.want.EmbargoSource {
				t.Errorf("facts %+v, want provenance %+v", f, tc.want)
			}
			ix, err := OpenIndex(filepath.Join(dir, layout.IndexFile), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := ix.GetMany([]string{tc.entry.ID}); err != nil || got[tc.entry.ID].EmbargoSource != tc.want.EmbargoSource {
				t.Errorf("index entry's embargo source %q (%v), want %q", got[tc.entry.ID].EmbargoSource, err, tc.want.EmbargoSource)
			}
			fs, err := warcfields.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range tc.absent {
				if slices.ContainsFunc(fs, func(f warcfields.Field) bool { return f.Name == k }) {
					t.Errorf("metadata holds %q:\n%s", k, raw)
				}
			}
		})
	}
	// A record written before these fields existed still reads.
	old := []byte(`{"format":"archivectl-capture-facts/1","capture":"<urn:uuid:x>","url":"https://e.com/","embargo_days":31}`)
	if f, err := parseFacts(old); err != nil || f.Period != 31 || f.RequisiteOf != "" {
		t.Errorf("an older record: %+v, %v", f, err)
	}
}

// allFacts has every fact set, with values that must be encoded to survive.
var allFacts = facts{
	Capture: "<urn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134790>", URL: "https://example.com/a?next==?x", Period: 31,
	Rule: "3 embargo-allow /news", LastModified: "Sun, 01 Feb 2026 00:00:00 GMT, Mon, 02 Feb 2026 00:00:00 GMT",
	FirstSeen: time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC), ReleaseAt: time.Date(2026, 4, 1, 12, 0, 0, 123456789, time.UTC),
	Robots: true, RobotsID: "<urn:uuid:robots>", UsageHeader: []string{"train-ai=n", " spaced "}, UsageRobots: []string{"train-ai=n, search=y"},
	Usage: []string{"search=y", "train-ai=n"}, Truncated: "length", Outlinks: []string{"https://example.com/b", "https://example.com/ü"},
	RequisiteOf: "https://example.com/", RequisiteOfID: "<urn:uuid:page>", Sitemap: "https://example.com/sitemap.xml",
	SitemapLastmod: "2026-02-01", EmbargoSource: "header", LoadedBy: "browser",
}

// TestFactsForms: the named fields hold every fact and read back equal; the JSON document of
// archives sealed before reads to the same facts.
func TestFactsForms(t *testing.T) {
	t.Parallel()
	b, err := allFacts.encode()
	if err != nil {
		t.Fatal(err)
	}
	want := "format: archivectl-capture-facts/2\r\n" +
		"capture: <urn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134790>\r\n" +
		"url: =?utf-8?b?aHR0cHM6Ly9leGFtcGxlLmNvbS9hP25leHQ9PT94?=\r\n" +
		"embargo_days: 31\r\n" +
		"rule: 3 embargo-allow /news\r\n" +
		"last_modified: Sun, 01 Feb 2026 00:00:00 GMT, Mon, 02 Feb 2026 00:00:00 GMT\r\n" +
		"first_seen: 2026-03-01T12:00:00.123456789Z\r\n" +
		"release_at: 2026-04-01T12:00:00.123456789Z\r\n" +
		"robots: true\r\n" +
		"robots_id: <urn:uuid:robots>\r\n" +
		"usage_header: train-ai=n\r\n" +
		"usage_header: =?utf-8?b?IHNwYWNlZCA=?=\r\n" +
		"usage_robots: train-ai=n, search=y\r\n" +
		"usage: search=y\r\n" +
		"usage: train-ai=n\r\n" +
		"truncated: length\r\n" +
		"requisite_of: https://example.com/\r\n" +
		"requisite_of_id: <urn:uuid:page>\r\n" +
		"sitemap: https://example.com/sitemap.xml\r\n" +
		"sitemap_lastmod: 2026-02-01\r\n" +
		"embargo_source: header\r\n" +
		"loaded_by: browser\r\n" +
		"outlink: https://example.com/b\r\n" +
		"outlink: https://example.com/ü\r\n"
	if string(b) != want {
		t.Errorf("encoded\n%s\nwant\n%s", b, want)
	}
	got, err := parseFacts(b)
	wantFacts := allFacts
	wantFacts.Format = metadataFormat
	if err != nil || !reflect.DeepEqual(got, wantFacts) {
		t.Errorf("parsed %+v, %v\nwant %+v", got, err, wantFacts)
	}
	old := []byte(`{
 "format": "archivectl-capture-facts/1",
 "capture": "\u003curn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134790\u003e",
 "url": "https://example.com/a?next==?x",
 "embargo_days": 31,
 "rule": "3 embargo-allow /news",
 "last_modified": "Sun, 01 Feb 2026 00:00:00 GMT, Mon, 02 Feb 2026 00:00:00 GMT",
 "first_seen": "2026-03-01T12:00:00.123456789Z",
 "release_at": "2026-04-01T12:00:00.123456789Z",
 "robots": true,
 "robots_id": "\u003curn:uuid:robots\u003e",
 "usage_header": ["train-ai=n", " spaced "],
 "usage_robots": ["train-ai=n, search=y"],
 "usage": ["search=y", "train-ai=n"],
 "truncated": "length",
 "outlinks": ["https://example.com/b", "https://example.com/ü"],
 "requisite_of": "https://example.com/",
 "requisite_of_id": "\u003curn:uuid:page\u003e",
 "sitemap": "https://example.com/sitemap.xml",
 "sitemap_lastmod": "2026-02-01",
 "embargo_source": "header"
}
`)
	fromJSON, err := parseFacts(old)
	fromJSON.Format = metadataFormat
	wantJSON := wantFacts
	wantJSON.LoadedBy = "" // the JSON form predates loaded_by
	if err != nil || !reflect.DeepEqual(fromJSON, wantJSON) {
		t.Errorf("JSON form: %+v, %v\nwant %+v", fromJSON, err, wantJSON)
	}
	for _, bad := range []string{
		`{"format":"archivectl-capture-facts/2","capture":"x"}`,
		"format: archivectl-capture-facts/1\r\ncapture: x\r\n",
		"capture: x\r\nformat: archivectl-capture-facts/2\r\n",
		"format: archivectl-capture-facts/2\r\nurl: x\r\n",
		"format: archivectl-capture-facts/2\r\ncapture: x\r\nembargo_days: many\r\n",
		"format: archivectl-capture-facts/2\r\ncapture: x\r\nfirst_seen: yesterday\r\n",
	} {
		if f, err := parseFacts([]byte(bad)); err == nil {
			t.Errorf("parseFacts(%q) = %+v, want an error", bad, f)
		}
	}
}
