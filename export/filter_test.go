package export

import (
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/aipref"
)

func TestParseUsageRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    UsageRule
		wantErr string // part of the error; "" when it parses
	}{
		{"train-ai=n", UsageRule{aipref.TrainAI, aipref.Disallow}, ""},
		{"train-ai=y", UsageRule{aipref.TrainAI, aipref.Allow}, ""},
		{"search=n", UsageRule{aipref.Search, aipref.Disallow}, ""},
		{"ai-use=y", UsageRule{aipref.AIUse, aipref.Allow}, ""},
		{"train-ai", UsageRule{}, "is not CATEGORY=y or CATEGORY=n"},
		{"=n", UsageRule{}, "is not CATEGORY=y or CATEGORY=n"},
		{"", UsageRule{}, "is not CATEGORY=y or CATEGORY=n"},
		{"train-ai=n=y", UsageRule{}, "is not CATEGORY=y or CATEGORY=n"},
		{"Train-AI=n", UsageRule{}, `category labels are lowercase: "train-ai"`},
		{"SEARCH=y", UsageRule{}, `category labels are lowercase: "search"`},
		{"train-genai=n", UsageRule{}, `unknown category "train-genai"`},
		{" train-ai=n", UsageRule{}, `unknown category " train-ai"`},
		{"train-ai=N", UsageRule{}, `the value must be y or n, not "N"`},
		{"train-ai=", UsageRule{}, `the value must be y or n, not ""`},
		{"train-ai=?1", UsageRule{}, `the value must be y or n`},
		{"train-ai=n;x=1", UsageRule{}, "is not CATEGORY=y or CATEGORY=n"},
		{"train-ai=n;x", UsageRule{}, `the value must be y or n`},
	}
	for _, tc := range tests {
		got, err := ParseUsageRule(tc.in)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("ParseUsageRule(%q): %v", tc.in, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("ParseUsageRule(%q) error = %v, want one saying %q", tc.in, err, tc.wantErr)
		case err == nil && (got != tc.want || got.String() != tc.in):
			t.Errorf("ParseUsageRule(%q) = %+v (%s), want %+v", tc.in, got, got, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseUsageRule(%q): the error is not one line: %q", tc.in, err)
		}
	}
}

func TestUsageValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		usage    []string
		category string
		want     aipref.Value
	}{
		{nil, aipref.TrainAI, aipref.Unknown},
		{[]string{"train-ai=n"}, aipref.TrainAI, aipref.Disallow},
		{[]string{"train-ai=y"}, aipref.TrainAI, aipref.Allow},
		{[]string{"search=n"}, aipref.TrainAI, aipref.Unknown},
		{[]string{"search=y", "train-ai=n"}, aipref.Search, aipref.Allow},
		{[]string{"train-ai=y", "train-ai=n"}, aipref.TrainAI, aipref.Disallow}, // n wins, in any order
		{[]string{"train-ai=n", "train-ai=y"}, aipref.TrainAI, aipref.Disallow},
		{[]string{"train-ai=maybe"}, aipref.TrainAI, aipref.Unknown},
		{[]string{"train-aix=n"}, aipref.TrainAI, aipref.Unknown},
	}
	for _, tc := range tests {
		if got := usageValue(tc.usage, tc.category); got != tc.want {
			t.Errorf("usageValue(%q, %s) = %s, want %s", tc.usage, tc.category, got, tc.want)
		}
	}
}

func TestFilterReason(t *testing.T) {
	t.Parallel()
	rule := func(s string) UsageRule {
		r, err := ParseUsageRule(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		f      Filter
		url    string
		at     time.Time
		usage  []string
		reason string
	}{
		{"no filter", Filter{}, "http://a.example/x", t0, []string{"train-ai=n"}, ""},
		{"prefix in", Filter{URLPrefix: "http://a.example/news/"}, "https://a.example/news/1", t0, nil, ""},
		{"prefix itself", Filter{URLPrefix: "http://a.example/news/"}, "http://a.example/news", t0, nil, ""},
		{"prefix sibling", Filter{URLPrefix: "http://a.example/news/"}, "http://a.example/newsletter", t0, nil, ReasonURLPrefix},
		{"prefix without slash takes siblings", Filter{URLPrefix: "http://a.example/news"}, "http://a.example/newsletter", t0, nil, ""},
		{"prefix other host", Filter{URLPrefix: "http://a.example/"}, "http://b.example/", t0, nil, ReasonURLPrefix},
		{"from is inclusive", Filter{From: t0}, "http://a.example/", t0, nil, ""},
		{"before from", Filter{From: t0}, "http://a.example/", t0.Add(-time.Nanosecond), nil, ReasonTime},
		{"to is exclusive", Filter{To: t0}, "http://a.example/", t0, nil, ReasonTime},
		{"before to", Filter{To: t0}, "http://a.example/", t0.Add(-time.Second), nil, ""},
		{"exclude n", Filter{Exclude: []UsageRule{rule("train-ai=n")}}, "http://a.example/", t0, []string{"train-ai=n"}, "exclude-usage train-ai=n"},
		{"exclude n keeps y", Filter{Exclude: []UsageRule{rule("train-ai=n")}}, "http://a.example/", t0, []string{"train-ai=y"}, ""},
		{"exclude n keeps unknown", Filter{Exclude: []UsageRule{rule("train-ai=n")}}, "http://a.example/", t0, nil, ""},
		{"require y keeps y", Filter{Require: []UsageRule{rule("train-ai=y")}}, "http://a.example/", t0, []string{"search=n", "train-ai=y"}, ""},
		{"require y drops unknown", Filter{Require: []UsageRule{rule("train-ai=y")}}, "http://a.example/", t0, []string{"search=y"}, "require-usage train-ai=y"},
		{"require y drops n", Filter{Require: []UsageRule{rule("train-ai=y")}}, "http://a.example/", t0, []string{"train-ai=n"}, "require-usage train-ai=y"},
		{"first reason counts", Filter{URLPrefix: "http://b.example/", Exclude: []UsageRule{rule("train-ai=n")}}, "http://a.example/", t0, []string{"train-ai=n"}, ReasonURLPrefix},
		{"exclude before require", Filter{Exclude: []UsageRule{rule("search=n")}, Require: []UsageRule{rule("train-ai=y")}}, "http://a.example/", t0, []string{"search=n"}, "exclude-usage search=n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			if err := f.Check(); err != nil {
				t.Fatal(err)
			}
			key, err := newPrefixMatcher(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.reason(key.from, tc.at, tc.usage); got != tc.reason {
				t.Errorf("reason = %q, want %q", got, tc.reason)
			}
		})
	}
}

func TestFilterCheck(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []Filter{
		{URLPrefix: "ftp://example.com/"},
		{URLPrefix: "example.com/news"},
		{From: t0, To: t0},
		{From: t0.Add(time.Hour), To: t0},
	} {
		if err := f.Check(); err == nil {
			t.Errorf("Check(%+v) = nil, want an error", f)
		}
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2026-03-01T12:00:00Z", time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), true},
		{"2026-03-01T13:00:00+01:00", time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), true},
		{"2026-03-01", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), true},
		{"20260301", time.Time{}, false},
		{"yesterday", time.Time{}, false},
	}
	for _, tc := range tests {
		got, err := ParseTime(tc.in)
		if (err == nil) != tc.ok || !got.Equal(tc.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzParseUsageRule: whatever it is given, the parser either accepts a rule that renders back to
// exactly its input, or gives one line saying why not.
func FuzzParseUsageRule(f *testing.F) {
	for _, s := range []string{"train-ai=n", "search=y", "Train-AI=n", "train-ai", "=", "ai-use=y=n", "train-ai=\n", "\xff=y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseUsageRule(s)
		if err != nil {
			if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
				t.Fatalf("ParseUsageRule(%q): error %q is not one line", s, msg)
			}
			return
		}
		if r.String() != s {
			t.Fatalf("ParseUsageRule(%q) = %q: does not render back", s, r)
		}
		if r.Value != aipref.Allow && r.Value != aipref.Disallow {
			t.Fatalf("ParseUsageRule(%q): value %v", s, r.Value)
		}
		if again, err := ParseUsageRule(r.String()); err != nil || again != r {
			t.Fatalf("ParseUsageRule(%q) again = %+v, %v", s, again, err)
		}
	})
}
