package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/crawler/crawlertest"
)

// urlset is a sitemap of n URLs under base.
func urlset(base string, n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>%s%d</loc></url>\n", base, i)
	}
	b.WriteString("</urlset>")
	return b.String()
}

func TestReadSitemap(t *testing.T) {
	t.Parallel()
	bomb := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
		`<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>` +
		`<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.example/&lol3;</loc></url></urlset>`
	tests := []struct {
		name    string
		in      string
		index   bool
		entries int
		first   SitemapEntry
		cut     string // a part of the reason reading stopped; "" when it read everything
	}{
		{"urlset with lastmod", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> https://a.example/x </loc><lastmod>2026-11-01T10:00:00+01:00</lastmod><priority>1</priority></url></urlset>`,
			false, 1, SitemapEntry{"https://a.example/x", "2026-11-01T10:00:00+01:00"}, ""},
		{"index", `<sitemapindex><sitemap><loc>https://a.example/s1.xml.gz</loc><lastmod>2026-11</lastmod></sitemap></sitemapindex>`,
			true, 1, SitemapEntry{"https://a.example/s1.xml.gz", "2026-11"}, ""},
		{"gzip", string(crawlertest.Gzip(urlset("https://a.example/", 3))), false, 3, SitemapEntry{Loc: "https://a.example/0"}, ""},
		{"text", "\ufeff https://a.example/a\n\nhttps://a.example/b\r\n", false, 2, SitemapEntry{Loc: "https://a.example/a"}, ""},
		{"text: only absolute http(s) URLs", "Our pages:\n/relative\nmailto:x@a.example\nhttp:no-host\nHTTPS://a.example/b\n", false, 1, SitemapEntry{Loc: "HTTPS://a.example/b"}, ""},
		{"invalid lastmod dropped", `<urlset><url><loc>https://a.example/</loc><lastmod>yesterday</lastmod></url></urlset>`, false, 1, SitemapEntry{Loc: "https://a.example/"}, ""},
		{"loc elsewhere ignored", `<urlset><loc>https://a.example/top</loc><url><image><loc>https://a.example/i.png</loc></image><loc>https://a.example/p</loc></url></urlset>`,
			false, 1, SitemapEntry{Loc: "https://a.example/p"}, ""},
		{"50,000 entries at most", urlset("https://a.example/", maxSitemapURLs+10), false, maxSitemapURLs, SitemapEntry{Loc: "https://a.example/0"}, "more than 50000"},
		{"entity bomb is an error, not an expansion", bomb, false, 1, SitemapEntry{Loc: "https://a.example/1"}, "invalid XML"},
		{"not a sitemap", `<html><a href="/x">x</a></html>`, false, 0, SitemapEntry{}, "root element is <html>"},
		{"nesting bounded", "<urlset><url>" + strings.Repeat("<x>", 100000) + "</urlset>", false, 0, SitemapEntry{}, "nested too deep"},
		{"cut XML keeps what was read", `<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.exa`, false, 1, SitemapEntry{Loc: "https://a.example/1"}, "invalid XML"},
		{"bad gzip", "\x1f\x8b\x08\x00garbage", false, 0, SitemapEntry{}, "gzip"},
		{"1 GB of gzip read up to 50 MB", string(crawlertest.GzipFill("<urlset><url><loc>https://a.example/1</loc></url>", ' ', 1<<30)), false, 1, SitemapEntry{Loc: "https://a.example/1"}, "larger than 50 MB"},
		{"1 GB of gzipped zeros: no line ends", string(crawlertest.GzipFill("", 0, 1<<30)), false, 0, SitemapEntry{}, "token too long"},
		{"long loc skipped", "<urlset><url><loc>https://a.example/" + strings.Repeat("a", 3000) + "</loc></url><url><loc>https://a.example/ok</loc></url></urlset>",
			false, 1, SitemapEntry{Loc: "https://a.example/ok"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sm := ReadSitemap(strings.NewReader(tc.in))
			if sm.Index != tc.index || len(sm.Entries) != tc.entries {
				t.Fatalf("index %v, %d entries (cut %q); want %v, %d", sm.Index, len(sm.Entries), sm.Cut, tc.index, tc.entries)
			}
			if tc.entries > 0 && sm.Entries[0] != tc.first {
				t.Errorf("first entry %+v, want %+v", sm.Entries[0], tc.first)
			}
			if tc.cut == "" && sm.Cut != "" || !strings.Contains(sm.Cut, tc.cut) {
				t.Errorf("cut %q, want it to say %q", sm.Cut, tc.cut)
			}
		})
	}
}

func FuzzReadSitemap(f *testing.F) {
	f.Add(urlset("https://a.example/", 2))
	f.Add(`<sitemapindex><sitemap><loc>x</loc><lastmod>2026</lastmod></sitemap></sitemapindex>`)
	f.Add("https://a.example/\n\x00\xff")
	f.Fuzz(func(t *testing.T, in string) {
		sm := ReadSitemap(strings.NewReader(in))
		if len(sm.Entries) > maxSitemapURLs {
			t.Fatalf("%d entries", len(sm.Entries))
		}
		for _, e := range sm.Entries {
			if e.Loc == "" || len(e.Loc) >= maxSitemapLoc || e.Lastmod != "" && w3cDatetime(e.Lastmod) == "" {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}
