package robots

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// codes lists the warnings' "line code" pairs.
func codes(ws []Warning) []string {
	var out []string
	for _, w := range ws {
		if w.Line == 0 {
			out = append(out, w.Code)
		} else {
			out = append(out, strconv.Itoa(w.Line)+" "+w.Code)
		}
	}
	return out
}

func TestLintWarnings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, agent string
		want              []string
	}{
		{"clean", "User-agent: archivectl\nArchive-Embargo: m\nEmbargo-Allow: /news\nDisallow: /\n", "archivectl", nil},
		{"invalid embargo", "User-agent: *\nArchive-Embargo: 90d\nDisallow: /x\n", "", []string{"2 invalid-embargo"}},
		{"embargo-allow without embargo", "User-agent: *\nEmbargo-Allow: /news\nDisallow: /\n", "", []string{"2 embargo-allow-ignored"}},
		{"embargo-allow with only an invalid embargo", "User-agent: *\nArchive-Embargo: 90d\nEmbargo-Allow: /news\nDisallow: /\n", "",
			[]string{"2 invalid-embargo", "3 embargo-allow-ignored"}},
		{"embargo in a merged group counts", "User-agent: archivectl\nEmbargo-Allow: /news\n\nUser-agent: ArchiveCtl\nArchive-Embargo: w\n", "archivectl", nil},
		{"embargo in another agent's group does not count", "User-agent: other\nArchive-Embargo: w\n\nUser-agent: archivectl\nEmbargo-Allow: /news\n", "archivectl",
			[]string{"5 embargo-allow-ignored"}},
		{"shadowed by a longer disallow", "User-agent: *\nArchive-Embargo: q\nEmbargo-Allow: /news\nDisallow: /news*\n", "", []string{"3 embargo-allow-shadowed"}},
		{"equal length: allow wins, no shadow", "User-agent: *\nArchive-Embargo: q\nEmbargo-Allow: /news\nDisallow: /news\n", "", nil},
		{"longer but narrower disallow: no shadow", "User-agent: *\nArchive-Embargo: q\nEmbargo-Allow: /news\nDisallow: /news/a\n", "", nil},
		{"anchored disallow: no shadow", "User-agent: *\nArchive-Embargo: q\nEmbargo-Allow: /news\nDisallow: /news$\n", "", nil},
		{"disallow of another group: no shadow", "User-agent: a\nArchive-Embargo: q\nEmbargo-Allow: /news\n\nUser-agent: b\nDisallow: /news*\n", "", nil},
		{"near miss: hyphen", "User-agent: archive-ctl\nDisallow: /\n", "archivectl", []string{"1 agent-near-miss", "no-group-for-token"}},
		{"near miss: token with a digit", "User-agent: archivectl\nDisallow: /\n", "archivectl2", []string{"invalid-token", "1 agent-near-miss", "no-group-for-token"}},
		{"case alone matches", "User-agent: ARCHIVECTL\nDisallow: /\n", "archivectl", nil},
		{"value cut to its token", "User-agent: archivectl/1.0\nDisallow: /\n", "archivectl", []string{"1 agent-value-cut"}},
		{"value without a token", "User-agent: 2bot\nDisallow: /\n", "", []string{"1 agent-value-empty"}},
		{"token outside the grammar", "User-agent: *\nDisallow: /\n", "archive.ctl", []string{"invalid-token", "no-group-for-token"}},
		{"rule outside any group", "Disallow: /\nUser-agent: *\nAllow: /\n", "", []string{"1 outside-group"}},
		{"unknown key with a hint", "User-agent: *\nArchive_Embargo: m\n", "", []string{"2 unknown-key"}},
		{"invalid content-usage", "User-agent: *\nContent-Usage: /a train-ai=maybe(\n", "", []string{"2 invalid-usage"}},
		{"no group at all", "# nothing\n", "archivectl", []string{"no-group-for-token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := codes(NewLint([]byte(tc.body)).Warnings(tc.agent))
			if !slices.Equal(got, tc.want) {
				t.Errorf("Warnings(%q) =\n%q\nwant\n%q", tc.agent, got, tc.want)
			}
		})
	}
}

func TestLintURLWarnings(t *testing.T) {
	t.Parallel()
	body := "User-agent: *\nArchive-Embargo: q\nEmbargo-Allow: /news\nDisallow: /news/live\n\nUser-agent: nobody\nEmbargo-Allow: /a\nDisallow: /a/b\n"
	l := NewLint([]byte(body))
	for _, tc := range []struct {
		agent, path string
		want        []string
	}{
		{"archivectl", "/news/live/1", []string{"3 embargo-allow-shadowed"}},
		{"archivectl", "/news/old", nil},
		{"archivectl", "/robots.txt", nil},
		{"nobody", "/a/b", []string{"7 embargo-allow-ignored"}},
	} {
		d := l.Policy.Evaluate(tc.agent, tc.path)
		if got := codes(l.URLWarnings(tc.agent, tc.path, d)); !slices.Equal(got, tc.want) {
			t.Errorf("URLWarnings(%q, %q) = %q, want %q", tc.agent, tc.path, got, tc.want)
		}
	}
}

// TestLintEvaluatesAsNewPolicy checks that the Lint's policy is the crawler's: same decisions,
// cut at the same byte.
func TestLintEvaluatesAsNewPolicy(t *testing.T) {
	t.Parallel()
	head := "User-agent: *\r\nArchive-Embargo: m\r\nEmbargo-Allow: /e\r\nDisallow: /\r\nContent-Usage: train-ai=n\r\n"
	long := head + strings.Repeat("Disallow: /pad\n", MaxBytes/15) + "Allow: /late\n"
	for _, body := range []string{head, long, "\xEF\xBB\xBFUser-agent: a\nDisallow: /x\n"} {
		l, p := NewLint([]byte(body)), NewPolicy([]byte(body))
		for _, path := range []string{"/", "/e", "/late", "/x", "/robots.txt"} {
			for _, agent := range []string{"a", "archivectl"} {
				got, want := l.Policy.Evaluate(agent, path), p.Evaluate(agent, path)
				if got.Allowed != want.Allowed || got.Rule != want.Rule || got.Period != want.Period || !slices.Equal(got.ContentUsage, want.ContentUsage) {
					t.Errorf("%d-byte body, %s %s: lint %+v, NewPolicy %+v", len(body), agent, path, got, want)
				}
			}
		}
		if l.Truncated != (len(body) > MaxBytes) {
			t.Errorf("%d-byte body: Truncated = %v", len(body), l.Truncated)
		}
	}
	if l := NewLint([]byte(head)); l.Line(3) != "Embargo-Allow: /e" || l.Line(6) != "" || l.Line(0) != "" {
		t.Errorf("Line(3) = %q, Line(6) = %q", l.Line(3), l.Line(6))
	}
	if l := NewLint([]byte("\xEF\xBB\xBFa: b # c\r\rd: e")); l.Line(1) != "a: b # c" || l.Line(2) != "" || l.Line(3) != "d: e" {
		t.Errorf("lines after a BOM and CR CR: %q %q %q", l.Line(1), l.Line(2), l.Line(3))
	}
	if !bytes.Equal(parsedPart([]byte(long)), []byte(long)[:len(parsedPart([]byte(long)))]) {
		t.Error("parsedPart is not a prefix")
	}
}
