package robots

import (
	"strings"

	"github.com/archivectl/archivectl/aipref"
)

// usageRule is a content-usage line (attach-05 §3).
type usageRule struct {
	group int32
	line  int32
	raw   string // the path as written; "" when absent (docs/rules.md#d8)
	pat   pattern
	pref  string // the preference, trimmed (docs/rules.md#d9)
}

// addUsage files a content-usage line (attach-05 §3.2): a value starting with '/' holds a path
// up to the first SP or HTAB, and the rest, trimmed, is the preference (docs/rules.md#d9); any other value is
// all preference.
func addUsage(p *Policy, group int32, r Record) {
	u := usageRule{group: group, line: int32(r.Line), pref: r.Value}
	if strings.HasPrefix(r.Value, "/") {
		u.raw, u.pref = r.Value, ""
		if i := strings.IndexAny(r.Value, " \t"); i >= 0 {
			u.raw, u.pref = r.Value[:i], trimWS(r.Value[i:])
		}
		u.pat = compilePattern(u.raw)
	}
	p.usage = append(p.usage, u)
}

// contentUsage returns the preferences of every longest-matching Content-Usage rule (docs/rules.md#d8).
func (p *Policy) contentUsage(s *selection, path string) []string {
	best := int32(-1)
	for _, i := range s.usage {
		u := &p.usage[i]
		if u.pat.length >= best && (u.raw == "" || u.pat.match(path)) {
			best = u.pat.length
		}
	}
	if best < 0 {
		return nil
	}
	var out []string
	for _, i := range s.usage {
		u := &p.usage[i]
		if u.pat.length == best && (u.raw == "" || u.pat.match(path)) {
			out = append(out, u.pref)
		}
	}
	return out
}

// Usage combines the decision's Content-Usage statements per category: n beats y beats
// unknown; empty when no statement applies.
func (d Decision) Usage() aipref.Prefs {
	ps := make([]aipref.Prefs, 0, len(d.ContentUsage))
	for _, s := range d.ContentUsage {
		p, _ := aipref.Parse(s) // an unparseable statement leaves every category unknown (docs/rules.md#d18)
		ps = append(ps, p)
	}
	return aipref.Combine(ps...)
}
