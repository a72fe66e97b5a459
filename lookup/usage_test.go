package lookup

import (
	"html"
	"strings"
	"testing"
)

// The page shows a capture's Content-Usage both ways: combined per category in words, and the
// statements as the publisher wrote them (robots.txt rule first, then the header lines).
func TestPageShowsRawAndCombinedUsage(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	body := html.UnescapeString(get(t, s, "/?url=https://example.com/a").Body.String())
	for _, want := range []string{"AI training: ", "allowed", "train-ai=y, search=y", `train-ai=y;note="as stated"`, "x-label=n"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if i, j := strings.Index(body, "train-ai=y, search=y"), strings.Index(body, "x-label=n"); i > j {
		t.Error("the header's statement is shown before the robots.txt rule's")
	}
}
