package aipref

import (
	"maps"
	"slices"
	"testing"
)

// TestCombine checks vocab-08 §5.1: n beats y beats unknown, per category.
func TestCombine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []Prefs
		want Prefs
	}{
		{"nothing", nil, Prefs{}},
		{"one statement", []Prefs{{TrainAI: y}}, Prefs{TrainAI: y}},
		{"n beats y", []Prefs{{TrainAI: y}, {TrainAI: n}}, Prefs{TrainAI: n}},
		{"n beats y in any order", []Prefs{{TrainAI: n}, {TrainAI: y}}, Prefs{TrainAI: n}},
		{"y beats unknown", []Prefs{{}, {Search: y}}, Prefs{Search: y}},
		{"categories are independent", []Prefs{{TrainAI: y, Search: n}, {TrainAI: n, Search: y}}, Prefs{TrainAI: n, Search: n}},
		{"nil statement is all unknown", []Prefs{nil, {AIUse: y}}, Prefs{AIUse: y}},
		{"explicit Unknown stays unknown", []Prefs{{TrainAI: u}}, Prefs{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Combine(tc.in...); !maps.Equal(got, tc.want) {
				t.Errorf("Combine(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

// TestCombineHeaderAndRobots runs docs/rules.md#conformance-combining: the header's statement and the robots.txt rule's
// statement are parsed separately and combined (docs/rules.md#d16).
func TestCombineHeaderAndRobots(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		header     []string // Content-Usage field lines
		robots     []string // preferences of the winning robots.txt rule(s); nil when robots.txt has none
		crawlable  bool     // false: the URL is disallowed, so nothing is fetched nor recorded
		want       []string // Expressions of the combined result
		headerFail bool
	}{
		{"T153 most restrictive wins", []string{"train-ai=n"}, []string{"train-ai=y"}, true, []string{"train-ai=n"}, false},
		{"T154 different categories", []string{"search=y"}, []string{"train-ai=n"}, true, []string{"search=y", "train-ai=n"}, false},
		{"T155 invalid header adds nothing", []string{"Train-AI=n"}, []string{"train-ai=n"}, true, []string{"train-ai=n"}, true},
		{"T156 robots.txt 404", []string{"train-ai=y"}, nil, true, []string{"train-ai=y"}, false},
		{"T157 two header lines, one dictionary", []string{"train-ai=n", "search=y"}, nil, true, []string{"search=y", "train-ai=n"}, false},
		{"T158 disallowed URL is not fetched", []string{"train-ai=y"}, nil, false, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !tc.crawlable {
				// N/A: the crawler never sees the header, so no preference exists to combine.
				if got := Combine().Expressions(); len(got) != 0 {
					t.Errorf("uncrawlable URL has preferences %v", got)
				}
				return
			}
			h, err := ParseHeader(tc.header)
			if (err != nil) != tc.headerFail {
				t.Fatalf("ParseHeader(%q) error = %v, want error %v", tc.header, err, tc.headerFail)
			}
			all := []Prefs{h}
			for _, s := range tc.robots {
				r, err := Parse(s)
				if err != nil {
					t.Fatalf("Parse(%q): %v", s, err)
				}
				all = append(all, r)
			}
			if got := Combine(all...).Expressions(); !slices.Equal(got, tc.want) {
				t.Errorf("combined = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestExpressions checks rendering: sorted by label, unknowns omitted.
func TestExpressions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Prefs
		want []string
	}{
		{"empty", Prefs{}, []string{}},
		{"nil", nil, []string{}},
		{"sorted by label", Prefs{TrainAI: n, Search: y, AIUse: n}, []string{"ai-use=n", "search=y", "train-ai=n"}},
		{"unknown omitted", Prefs{TrainAI: u, Search: y}, []string{"search=y"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.in.Expressions(); !slices.Equal(got, tc.want) || got == nil {
				t.Errorf("Expressions() = %#v, want %q", got, tc.want)
			}
		})
	}
}

// TestValueString checks the vocabulary tokens.
func TestValueString(t *testing.T) {
	t.Parallel()
	for v, want := range map[Value]string{Unknown: "unknown", Allow: "y", Disallow: "n", Value(9): "unknown"} {
		if got := v.String(); got != want {
			t.Errorf("Value(%d).String() = %q, want %q", v, got, want)
		}
	}
}

// TestCategories checks the -08 labels and that callers cannot alter them.
func TestCategories(t *testing.T) {
	t.Parallel()
	want := []string{"ai-use", "search", "train-ai"}
	got := Categories()
	if !slices.Equal(got, want) {
		t.Fatalf("Categories() = %q, want %q", got, want)
	}
	got[0] = "x"
	if !slices.Equal(Categories(), want) {
		t.Errorf("Categories() changed after a caller modified its result")
	}
}
