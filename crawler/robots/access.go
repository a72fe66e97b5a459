package robots

import "slices"

// accessRule is an allow, disallow or embargo-allow line.
type accessRule struct {
	group int32
	line  int32
	kind  Key
	raw   string // the pattern as written
	pat   pattern
}

// addAccess files an allow, disallow or embargo-allow line; an empty pattern matches nothing (docs/rules.md#d3).
func addAccess(p *Policy, group int32, r Record) {
	if r.Value != "" {
		p.access = append(p.access, accessRule{group: group, kind: r.Key, line: int32(r.Line), raw: r.Value, pat: compilePattern(r.Value)})
	}
}

// bestRule returns the winner among best and the rules of list that match path.
func (p *Policy) bestRule(list []int32, path string, best *accessRule) *accessRule {
	for _, i := range list {
		best = p.consider(i, path, best)
	}
	return best
}

// consider returns rule i if it matches path and beats best, else best. The winner is the
// longest pattern; on equal length an allow-type rule beats a disallow (docs/rules.md#d2); then the earlier line.
func (p *Policy) consider(i int32, path string, best *accessRule) *accessRule {
	r := &p.access[i]
	if best != nil && !r.beats(best) {
		return best // checked before matching: matching is the costly part
	}
	if r.pat.match(path) {
		return r
	}
	return best
}

// prefixIndex finds the rules that can match a path without trying them all: a rule matches
// only paths that start with its literal prefix (up to the first '*'), so for each distinct
// prefix length n only the rules whose prefix is path[:n] are tried.
type prefixIndex struct {
	lengths []int            // distinct prefix lengths, ascending
	head    map[string]int32 // prefix → 1 + position in rule of its first rule; 0 = none
	next    []int32          // 1 + position of the next rule with the same prefix; 0 = end
	rule    []int32          // indices into Policy.access
}

// indexRules builds the prefix index of rules.
func (p *Policy) indexRules(rules []int32) *prefixIndex {
	ix := &prefixIndex{head: make(map[string]int32, len(rules)), next: make([]int32, len(rules)), rule: rules}
	for j, i := range rules {
		pre := p.access[i].pat.prefix()
		h, seen := ix.head[pre]
		if !seen {
			ix.lengths = append(ix.lengths, len(pre))
		}
		ix.next[j], ix.head[pre] = h, int32(j+1)
	}
	slices.Sort(ix.lengths)
	ix.lengths = slices.Compact(ix.lengths)
	return ix
}

// beats reports whether r wins over other when both match.
func (r *accessRule) beats(other *accessRule) bool {
	if r.pat.length != other.pat.length {
		return r.pat.length > other.pat.length
	}
	if (r.kind == KeyDisallow) != (other.kind == KeyDisallow) {
		return other.kind == KeyDisallow
	}
	return r.line < other.line
}
