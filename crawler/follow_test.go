package crawler

import (
	"context"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/crawler/extract"
)

// TestCrawlLinksPastTheBound: the links of a page past its 10,000th are logged and counted.
func TestCrawlLinksPastTheBound(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range extract.MaxLinks + 7 {
		b.WriteString(`<a href="/p` + itoa(i) + `">x</a>`)
	}
	o := newOrigin(t, pages(map[string]string{"/": b.String()}))
	sum, log, err := crawlInto(context.Background(), t, Config{Seeds: seedURLs(t, o.URL+"/"), MaxPages: 1}, &fakeArchive{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.LinksDropped != 7 || !strings.Contains(log, `msg="HTML holds more links than the limit: the rest are not followed"`) {
		t.Fatalf("LinksDropped = %d, want 7; log:\n%.2000s", sum.LinksDropped, log)
	}
}
