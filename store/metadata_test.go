package store

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/archivectl/archivectl/store/layout"
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
		absent []string // JSON keys the record must not hold
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
			raw := readBlock(t, meta)
			f, err := parseFacts(raw)
			if err != nil {
				t.Fatal(err)
			}
			if f.RequisiteOf != tc.want.RequisiteOf || f.RequisiteOfID != tc.want.RequisiteOfID || f.Sitemap != tc.want.Sitemap ||
				f.SitemapLastmod != tc.want.SitemapLastmod || f.EmbargoSource != tc.want.EmbargoSource {
				t.Errorf("facts %+v, want provenance %+v", f, tc.want)
			}
			for _, k := range tc.absent {
				if bytes.Contains(raw, []byte(`"`+k+`"`)) {
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
