package export

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"
)

func TestSelect(t *testing.T) {
	t.Parallel()
	a := standardFixture(t)
	rule := func(s string) UsageRule {
		r, err := ParseUsageRule(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		name     string
		f        Filter
		kept     []string // paths, in shard then file order
		excluded map[string]int
	}{
		{"everything", Filter{},
			[]string{"/", "/style.css", "/news/a", "/news/b", "/again", "/missing"},
			map[string]int{ReasonRevisitOriginal: 0}},
		{"exclude train-ai=n drops the revisit of what it drops", Filter{Exclude: []UsageRule{rule("train-ai=n")}},
			[]string{"/style.css", "/news/a", "/news/b", "/missing"},
			map[string]int{"exclude-usage train-ai=n": 1, ReasonRevisitOriginal: 1}},
		{"require train-ai=y", Filter{Require: []UsageRule{rule("train-ai=y")}},
			[]string{"/style.css", "/news/b"},
			map[string]int{"require-usage train-ai=y": 3, ReasonRevisitOriginal: 1}},
		{"exclude search=n and require train-ai=y", Filter{Exclude: []UsageRule{rule("search=n")}, Require: []UsageRule{rule("train-ai=y")}},
			[]string{"/style.css"},
			map[string]int{"exclude-usage search=n": 1, "require-usage train-ai=y": 3, ReasonRevisitOriginal: 1}},
		{"url prefix", Filter{URLPrefix: "https://www.example.com/news/"},
			[]string{"/news/a", "/news/b"},
			map[string]int{ReasonURLPrefix: 4, ReasonRevisitOriginal: 0}},
		{"time range", Filter{From: fixT0.Add(time.Minute), To: fixT0.Add(24 * time.Hour)},
			[]string{"/style.css", "/news/a", "/news/b"},
			map[string]int{ReasonTime: 3, ReasonRevisitOriginal: 0}},
		{"the revisit's original in range", Filter{From: fixT0, To: fixT0.Add(48 * time.Hour), Exclude: []UsageRule{rule("search=n")}},
			[]string{"/", "/style.css", "/news/a", "/again", "/missing"},
			map[string]int{ReasonTime: 0, "exclude-usage search=n": 1, ReasonRevisitOriginal: 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := Select(context.Background(), a.fsys, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range sel.Kept {
				got = append(got, c.URL[len("http://example.com"):])
			}
			if !slices.Equal(got, tc.kept) {
				t.Errorf("kept %q, want %q", got, tc.kept)
			}
			if !maps.Equal(sel.Excluded, tc.excluded) {
				t.Errorf("excluded %v, want %v", sel.Excluded, tc.excluded)
			}
			c := sel.Counts()
			sum := 0
			for _, n := range c.ByReason {
				sum += n
			}
			if c.Released != 6 || c.Kept != len(tc.kept) || c.Excluded != sum || c.Kept+c.Excluded != c.Released {
				t.Errorf("counts %+v do not add up", c)
			}
		})
	}
}

func TestSelectMembers(t *testing.T) {
	t.Parallel()
	a := standardFixture(t)
	sel, err := Select(context.Background(), a.fsys, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sel.Kept {
		want := a.members[c.ID]
		if !slices.Equal(c.Members, want[:]) || c.Response != want[1] {
			t.Errorf("%s: members %v, response %v; want %v", c.URL, c.Members, c.Response, want)
		}
		if c.Captured.IsZero() || c.Key == "" {
			t.Errorf("%s: no capture time or key", c.URL)
		}
	}
}

func TestSelectDamagedPublic(t *testing.T) {
	t.Parallel()
	a := standardFixture(t)
	writeFile(t, a.dir+"/shards/PUBLIC-20990101000000-00009.cdxj", []byte("not a cdxj line\n"))
	if _, err := Select(context.Background(), a.fsys, Filter{}); err == nil {
		t.Error("Select read a malformed CDXJ file without an error")
	}
}
