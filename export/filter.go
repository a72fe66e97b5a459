package export

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/archivectl/archivectl/aipref"
	"github.com/archivectl/archivectl/internal/surt"
)

// UsageRule is one usage filter, "CATEGORY=y" or "CATEGORY=n": a category of the aipref vocabulary
// and the combined preference a capture must (require) or must not (exclude) have for it.
type UsageRule struct {
	Category string       // a label of the vocabulary, e.g. "train-ai"
	Value    aipref.Value // aipref.Allow or aipref.Disallow
}

// String renders the rule as it is written: "train-ai=n".
func (r UsageRule) String() string { return r.Category + "=" + r.Value.String() }

// ParseUsageRule reads "CATEGORY=y" or "CATEGORY=n". The category must be one of the vocabulary's
// labels, written as the vocabulary writes them (lowercase); the value is y or n, nothing else.
func ParseUsageRule(s string) (UsageRule, error) {
	label, value, ok := strings.Cut(s, "=")
	known := aipref.Categories()
	switch {
	case !ok || label == "" || strings.Contains(value, "="):
		return UsageRule{}, fmt.Errorf("usage filter %q is not CATEGORY=y or CATEGORY=n (categories: %s)", s, strings.Join(known, ", "))
	case strings.ToLower(label) != label:
		return UsageRule{}, fmt.Errorf("usage filter %q: category labels are lowercase: %q", s, strings.ToLower(label))
	case !slices.Contains(known, label):
		return UsageRule{}, fmt.Errorf("usage filter %q: unknown category %q (categories: %s)", s, label, strings.Join(known, ", "))
	}
	switch value {
	case "y":
		return UsageRule{label, aipref.Allow}, nil
	case "n":
		return UsageRule{label, aipref.Disallow}, nil
	}
	return UsageRule{}, fmt.Errorf("usage filter %q: the value must be y or n, not %q", s, value)
}

// usageValue is a capture's combined preference for category, from its combined Content-Usage
// expressions ("train-ai=n", …): n wins over y, and no statement is unknown.
func usageValue(usage []string, category string) aipref.Value {
	v := aipref.Unknown
	for _, u := range usage {
		label, value, _ := strings.Cut(strings.TrimSpace(u), "=")
		if label != category {
			continue
		}
		switch strings.TrimSpace(value) {
		case "n":
			return aipref.Disallow
		case "y":
			v = aipref.Allow
		}
	}
	return v
}

// Filter selects released captures for an export. Its zero value selects every one.
type Filter struct {
	URLPrefix string      // only captures at or under this URL (matched as the lookup's matchType=prefix)
	From, To  time.Time   // only captures made at or after From and before To (zero: unbounded)
	Exclude   []UsageRule // leave out a capture whose combined preference for the category is the value
	Require   []UsageRule // keep only captures whose combined preference for the category is the value

	prefix prefixMatcher
}

// The reasons a capture is left out, as the export's counts name them; a usage rule's reason is
// "exclude-usage " or "require-usage " followed by the rule.
const (
	ReasonURLPrefix       = "url-prefix"
	ReasonTime            = "time"
	ReasonRevisitOriginal = "revisit-original-not-exported"
)

// Reasons lists every reason f can give, in the order it checks them.
func (f *Filter) Reasons() []string {
	var out []string
	if f.URLPrefix != "" {
		out = append(out, ReasonURLPrefix)
	}
	if !f.From.IsZero() || !f.To.IsZero() {
		out = append(out, ReasonTime)
	}
	for _, r := range f.Exclude {
		out = append(out, "exclude-usage "+r.String())
	}
	for _, r := range f.Require {
		out = append(out, "require-usage "+r.String())
	}
	return append(out, ReasonRevisitOriginal)
}

// Check checks the filter (a URL prefix must be an absolute http(s) URL; a time range must not be
// empty) and prepares it for use.
func (f *Filter) Check() error {
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return fmt.Errorf("the time range is empty: from %s is not before to %s", f.From.Format(time.RFC3339), f.To.Format(time.RFC3339))
	}
	f.prefix = prefixMatcher{}
	if f.URLPrefix == "" {
		return nil
	}
	m, err := newPrefixMatcher(f.URLPrefix)
	if err != nil {
		return err
	}
	f.prefix = m
	return nil
}

// reason is why f leaves out a capture with this SURT key, time and combined usage, or "" when it keeps it.
// The first reason that applies counts, in the order of Reasons.
func (f *Filter) reason(key string, t time.Time, usage []string) string {
	if f.URLPrefix != "" && !f.prefix.match(key) {
		return ReasonURLPrefix
	}
	if (!f.From.IsZero() && t.Before(f.From)) || (!f.To.IsZero() && !t.Before(f.To)) {
		return ReasonTime
	}
	for _, r := range f.Exclude {
		if usageValue(usage, r.Category) == r.Value {
			return "exclude-usage " + r.String()
		}
	}
	for _, r := range f.Require {
		if usageValue(usage, r.Category) != r.Value {
			return "require-usage " + r.String()
		}
	}
	return ""
}

// prefixMatcher selects SURT keys as the lookup's matchType=prefix does: a URL that ends in "/"
// selects itself and what lies below it; any other selects every key that starts with its SURT.
type prefixMatcher struct {
	from string
	dir  bool
}

// newPrefixMatcher prepares the matcher of a URL prefix.
func newPrefixMatcher(raw string) (prefixMatcher, error) {
	key, err := surt.Key(raw)
	if err != nil {
		return prefixMatcher{}, fmt.Errorf("url prefix: %w", err)
	}
	path := raw
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	dir := strings.HasSuffix(path, "/") && !strings.HasSuffix(key, ")/") && !strings.Contains(key, "?")
	return prefixMatcher{from: key, dir: dir}, nil
}

// match reports whether key is selected.
func (m prefixMatcher) match(key string) bool {
	if !strings.HasPrefix(key, m.from) {
		return false
	}
	if !m.dir {
		return true
	}
	rest := key[len(m.from):]
	return rest == "" || rest[0] == '/' || rest[0] == '?'
}

// ParseTime reads a time bound of a filter: RFC 3339, or a date YYYY-MM-DD (its midnight, UTC).
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, errors.New("not an RFC 3339 time (2026-03-01T12:00:00Z) nor a date (2026-03-01)")
}

// String describes the filter in one line, e.g. "url-prefix http://example.com/news/, exclude-usage
// train-ai=n"; "all released captures" when it selects every one.
func (f *Filter) String() string {
	var parts []string
	if f.URLPrefix != "" {
		parts = append(parts, "url-prefix "+f.URLPrefix)
	}
	if !f.From.IsZero() {
		parts = append(parts, "from "+f.From.Format(time.RFC3339Nano))
	}
	if !f.To.IsZero() {
		parts = append(parts, "to "+f.To.Format(time.RFC3339Nano))
	}
	for _, r := range f.Exclude {
		parts = append(parts, "exclude-usage "+r.String())
	}
	for _, r := range f.Require {
		parts = append(parts, "require-usage "+r.String())
	}
	if len(parts) == 0 {
		return "all released captures"
	}
	return strings.Join(parts, ", ")
}
