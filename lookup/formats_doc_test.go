package lookup

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/aipref"
)

// docJSONBlock matches a fenced JSON example of a Markdown page.
var docJSONBlock = regexp.MustCompile("(?s)```json\n(.*?)```")

// docSection returns the text of docs/formats.md under the heading title, up to the next heading.
func docSection(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile("../docs/formats.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+title+"\n")
	if !ok {
		t.Fatalf("docs/formats.md has no heading %q", title)
	}
	if end := strings.Index(rest, "\n#"); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// shape is a JSON value's structure without its values: an object's keys and their shapes, an
// array's element shapes, or the name of a scalar type.
func shape(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = shape(e)
		}
		return out
	case []any:
		var out []any
		for _, e := range v {
			if s := shape(e); !slices.ContainsFunc(out, func(o any) bool { return mustJSONAny(o) == mustJSONAny(s) }) {
				out = append(out, s)
			}
		}
		return out
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	}
	return "null"
}

func mustJSONAny(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// combinedUsage is the combined meaning of Content-Usage statements as written, per category
// of the vocabulary, in the words of the API's usage object.
func combinedUsage(t *testing.T, statements []any) map[string]any {
	t.Helper()
	var ps []aipref.Prefs
	for _, s := range statements {
		p, err := aipref.Parse(s.(string))
		if err != nil {
			t.Errorf("statement %q: %v", s, err)
		}
		ps = append(ps, p)
	}
	c := aipref.Combine(ps...)
	out := map[string]any{}
	for _, label := range aipref.Categories() {
		out[label] = map[aipref.Value]string{aipref.Allow: "allow", aipref.Disallow: "disallow", aipref.Unknown: "unknown"}[c.Get(label)]
	}
	return out
}

// TestFormatsDocMatchesCaptures reads the JSON example of docs/formats.md's "Lookup API answers"
// and compares it with a live /api/v1/captures answer, so that the page cannot drift from the
// API: the same top-level keys; each example capture has a live capture of its state (and
// revisit-ness) holding every key of the example with the same shape; every key of a live
// capture is in an example or named in the section's text; content_usage holds the statements
// as written and usage is their combined meaning per category, in the example as in the answer.
func TestFormatsDocMatchesCaptures(t *testing.T) {
	t.Parallel()
	section := docSection(t, "## Lookup API answers")
	blocks := docJSONBlock.FindAllStringSubmatch(section, -1)
	if len(blocks) == 0 {
		t.Fatal("the Lookup API section of docs/formats.md has no JSON example")
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(blocks[0][1]), &doc); err != nil {
		t.Fatalf("the captures example of docs/formats.md is not JSON: %v\n%s", err, blocks[0][1])
	}

	// A prefix page over the standard fixture: example.com/a's tombstone (header embargo,
	// headers, a pre-raw-statement line) and released capture (raw statements), then
	// example.com/b's released capture and its revisit; a next_cursor follows.
	s := standard(t).server(testNow)
	rec := get(t, s, "/api/v1/captures?url=https://example.com/&matchType=prefix&limit=4")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var live map[string]any
	decode(t, rec.Body, &live)

	if d, l := slices.Sorted(maps.Keys(doc)), slices.Sorted(maps.Keys(live)); !slices.Equal(d, l) {
		t.Errorf("top-level keys: docs/formats.md %v, the API %v", d, l)
	}
	docCaps, _ := doc["captures"].([]any)
	liveCaps, _ := live["captures"].([]any)
	if len(docCaps) == 0 || len(liveCaps) != 4 {
		t.Fatalf("%d example captures, %d live captures (want 4)", len(docCaps), len(liveCaps))
	}

	documented := map[string]bool{}
	for i, dc := range docCaps {
		d := dc.(map[string]any)
		var match map[string]any
		for _, lc := range liveCaps {
			l := lc.(map[string]any)
			if l["state"] == d["state"] && l["revisit"] == d["revisit"] {
				match = l
				break
			}
		}
		if match == nil {
			t.Errorf("example capture %d (state %v, revisit %v): no live capture like it", i, d["state"], d["revisit"])
			continue
		}
		for k, v := range d {
			documented[k] = true
			lv, ok := match[k]
			if !ok {
				t.Errorf("example capture %d has %q, the API's %v capture does not", i, k, d["state"])
				continue
			}
			if ds, ls := mustJSONAny(shape(v)), mustJSONAny(shape(lv)); ds != ls {
				t.Errorf("example capture %d: %q is shaped %s in docs/formats.md, %s in the API", i, k, ds, ls)
			}
		}
		// The example's usage is the combined meaning of its content_usage.
		if want := combinedUsage(t, d["content_usage"].([]any)); mustJSONAny(d["usage"]) != mustJSONAny(want) {
			t.Errorf("example capture %d: usage %s is not the combined meaning of content_usage %s (%s)",
				i, mustJSONAny(d["usage"]), mustJSONAny(d["content_usage"]), mustJSONAny(want))
		}
	}
	for _, lc := range liveCaps {
		for k := range lc.(map[string]any) {
			if !documented[k] && !strings.Contains(section, "`"+k+"`") {
				t.Errorf("the API answers %q, which docs/formats.md's Lookup API section neither shows nor names", k)
			}
		}
	}

	// content_usage raw, usage combined: the released capture of example.com/a has its robots.txt
	// rule and two header field lines as written, and their combination per category.
	rel := liveCaps[1].(map[string]any)
	wantRaw := []any{"train-ai=y, search=y", `train-ai=y;note="as stated"`, "x-label=n"}
	if mustJSONAny(rel["content_usage"]) != mustJSONAny(wantRaw) {
		t.Errorf("content_usage %s, want the statements as written %s", mustJSONAny(rel["content_usage"]), mustJSONAny(wantRaw))
	}
	if want := combinedUsage(t, wantRaw); mustJSONAny(rel["usage"]) != mustJSONAny(want) {
		t.Errorf("usage %s, want the combined meaning %s", mustJSONAny(rel["usage"]), mustJSONAny(want))
	}
	for _, needle := range []string{"`content_usage` lists the Content-Usage statements **as the publisher wrote them**", "`usage` is their **combined** meaning"} {
		if !strings.Contains(strings.Join(strings.Fields(section), " "), needle) {
			t.Errorf("docs/formats.md's Lookup API section no longer says %q", needle)
		}
	}
}
