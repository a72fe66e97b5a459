package robots

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/archivectl/archivectl/embargo"
)

// MaxBytes is how much of a robots.txt body is parsed: exactly the first 500 KiB (docs/rules.md#d11).
const MaxBytes = 512000

// Policy is a parsed robots.txt, ready to evaluate; safe for concurrent use.
type Policy struct {
	groups    []group
	access    []accessRule // allow, disallow and embargo-allow rules, file order
	usage     []usageRule  // content-usage rules, file order
	embargoes []embargoRule
	delays    []delayRule
	sitemaps  []string

	last atomic.Pointer[selection] // the selection of the agent evaluated last
	mu   sync.Mutex
	sels map[string]*selection // by lowercase agent
}

// group is one group's user-agent lines.
type group struct {
	tokens []string // product tokens (docs/rules.md#d5), never empty strings
	global bool     // one of its user-agent lines is "*"
}

// NewPolicy parses the first MaxBytes of body; a line that the limit cuts in half is dropped (docs/rules.md#d11).
func NewPolicy(body []byte) *Policy {
	if len(body) > MaxBytes {
		cut := body[:MaxBytes]
		if c := body[MaxBytes]; c != '\n' && c != '\r' {
			if i := lastLineEnd(cut); i >= 0 {
				cut = cut[:i+1]
			} else {
				cut = nil
			}
		}
		body = cut
	}
	// Size the rule list once: a rule line takes at least 8 bytes ("Allow:/\n").
	lines := bytes.Count(body, []byte{'\n'})
	if lines == 0 {
		lines = bytes.Count(body, []byte{'\r'})
	}
	p := &Policy{access: make([]accessRule, 0, min(lines+1, len(body)/8+1))}
	b := builder{p: p, cur: -1}
	Parse(body, &b)
	return p
}

// lastLineEnd is the index of the last CR or LF in b, or -1.
func lastLineEnd(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' || b[i] == '\r' {
			return i
		}
	}
	return -1
}

// builder forms groups from records (RFC 9309 §2.2.1, docs/rules.md#d1) and files each rule under its group.
type builder struct {
	p       *Policy
	cur     int  // index of the current group; -1 before the first user-agent line
	hasRule bool // the current group has a rule, so the next user-agent line starts a new group
}

// HandleRecord implements Handler.
func (b *builder) HandleRecord(r Record) {
	p := b.p
	switch r.Key {
	case KeyUserAgent:
		if b.cur < 0 || b.hasRule {
			p.groups = append(p.groups, group{})
			b.cur, b.hasRule = len(p.groups)-1, false
		}
		g := &p.groups[b.cur]
		if tok, global := agentValue(r.Value); global {
			g.global = true
		} else if tok != "" {
			g.tokens = append(g.tokens, tok)
		}
		return
	case KeySitemap:
		if r.Value != "" {
			p.sitemaps = append(p.sitemaps, r.Value)
		}
		return
	}
	if b.cur < 0 {
		return // rules and other records before the first user-agent line belong to no group
	}
	if r.Key.Rule() {
		b.hasRule = true
	}
	if int(r.Key) < len(groupRecords) && groupRecords[r.Key] != nil {
		groupRecords[r.Key](p, int32(b.cur), r)
	}
}

// groupRecords files the records that belong to a group, by key. Each extension rule is one
// entry here and one file of its own; the tokenizer only looks keys up (keys.go).
var groupRecords = [...]func(p *Policy, group int32, r Record){
	KeyAllow:          addAccess,
	KeyDisallow:       addAccess,
	KeyEmbargoAllow:   addAccess,
	KeyArchiveEmbargo: addEmbargo,
	KeyContentUsage:   addUsage,
	KeyCrawlDelay:     addDelay,
}

// Sitemaps lists every Sitemap value in file order, wherever it stands (docs/rules.md#d21).
func (p *Policy) Sitemaps() []string {
	if p == nil {
		return nil
	}
	return p.sitemaps
}

// selection is the merged group that applies to one agent (RFC 9309 §2.2.1, docs/rules.md#d12).
type selection struct {
	agent  string       // lowercase
	access []int32      // indices into Policy.access; nil when index is used
	index  *prefixIndex // large groups: the rules by literal prefix
	usage  []int32      // indices into Policy.usage
	period embargo.Period
	delay  time.Duration
}

// selectFor returns the merged group for agent, computing it once per agent.
func (p *Policy) selectFor(agent string) *selection {
	if s := p.last.Load(); s != nil && strings.EqualFold(s.agent, agent) {
		return s
	}
	key := strings.ToLower(agent)
	p.mu.Lock()
	s := p.sels[key]
	if s == nil {
		s = p.merge(key)
		if p.sels == nil || len(p.sels) >= 64 {
			p.sels = make(map[string]*selection)
		}
		p.sels[key] = s
	}
	p.mu.Unlock()
	p.last.Store(s)
	return s
}

// chosen is the choice of groups for agent, one flag per group: every group naming it, or else
// every "*" group; specific says it was named. merge and the lint both choose by it.
func (p *Policy) chosen(agent string) ([]bool, bool) {
	in := make([]bool, len(p.groups))
	specific := false
	for i, g := range p.groups {
		for _, t := range g.tokens {
			if agent != "" && strings.EqualFold(t, agent) {
				in[i], specific = true, true
				break
			}
		}
	}
	if !specific {
		for i, g := range p.groups {
			in[i] = g.global
		}
	}
	return in, specific
}

// merge builds the selection for agent from the groups chosen for it.
func (p *Policy) merge(agent string) *selection {
	in, _ := p.chosen(agent)
	s := &selection{agent: agent}
	for _, e := range p.embargoes {
		if in[e.group] && e.period > s.period {
			s.period = e.period // several valid values: the longest (docs/rules.md#d6)
		}
	}
	for _, d := range p.delays {
		if in[d.group] && d.delay > s.delay {
			s.delay = d.delay
		}
	}
	var rules []int32
	for i, r := range p.access {
		// Embargo-Allow counts only with a valid Archive-Embargo in the merged group (docs/rules.md#d12).
		if in[r.group] && (r.kind != KeyEmbargoAllow || s.period != embargo.None) {
			rules = append(rules, int32(i))
		}
	}
	if len(rules) < 32 {
		s.access = rules
	} else {
		s.index = p.indexRules(rules)
	}
	for i, u := range p.usage {
		if in[u.group] {
			s.usage = append(s.usage, int32(i))
		}
	}
	return s
}

// Rule kinds reported in Decision.Rule.Kind besides the keys of access rules.
const (
	KindImplicit    = "implicit"    // no rule matched, or /robots.txt itself
	KindUnavailable = "unavailable" // robots.txt was unavailable (4xx): everything allowed
	KindUnreachable = "unreachable" // robots.txt was unreachable (5xx, network): everything disallowed
)

// Rule is the robots.txt rule that decided an evaluation.
type Rule struct {
	Line    int    `json:"line,omitempty"`    // line number in robots.txt; 0 when no line decided
	Kind    string `json:"kind"`              // "allow", "disallow", "embargo-allow", or one of the Kind constants
	Pattern string `json:"pattern,omitempty"` // the pattern as written in robots.txt
}

// String renders the rule as "LINE KIND PATTERN", e.g. "12 embargo-allow /news".
func (r Rule) String() string {
	s := r.Kind
	if r.Line > 0 {
		s = strconv.Itoa(r.Line) + " " + s
	}
	if r.Pattern != "" {
		s += " " + r.Pattern
	}
	return s
}

// Decision is the outcome of evaluating one URL for one crawler.
type Decision struct {
	Allowed      bool
	Rule         Rule
	Period       embargo.Period // embargo.None when no valid Archive-Embargo applies, or not allowed
	ContentUsage []string       // raw preferences of the longest-matching Content-Usage rule(s), file order; nil when none or not allowed
	CrawlDelay   time.Duration  // the selected group's Crawl-delay; 0 = none (docs/rules.md#d19)
}

// Evaluate decides whether agent may fetch pathQuery (the path plus "?query" as on the request
// line; "" means "/"), with the embargo period and the Content-Usage preferences that apply.
// agent is compared with user-agent values case-insensitively. A nil Policy allows everything.
func (p *Policy) Evaluate(agent, pathQuery string) Decision {
	if p == nil {
		p = emptyPolicy
	}
	if pathQuery == "" {
		pathQuery = "/"
	}
	path := normalize(pathQuery, false)
	s := p.selectFor(agent)
	d := Decision{Allowed: true, Rule: Rule{Kind: KindImplicit}, CrawlDelay: s.delay}
	if path == "/robots.txt" {
		return d // always allowed, never embargoed (RFC 9309 §2.2.2)
	}
	best := p.bestRule(s.access, path, nil)
	if ix := s.index; ix != nil {
		for _, n := range ix.lengths {
			if n > len(path) {
				break
			}
			for j := ix.head[path[:n]]; j != 0; j = ix.next[j-1] {
				best = p.consider(ix.rule[j-1], path, best)
			}
		}
	}
	if best != nil {
		d.Rule = Rule{Line: int(best.line), Kind: best.kind.String(), Pattern: best.raw}
		if best.kind == KeyDisallow {
			d.Allowed = false
			return d
		}
	}
	d.Period = s.period
	d.ContentUsage = p.contentUsage(s, path)
	return d
}

// emptyPolicy is the policy of an empty robots.txt.
var emptyPolicy = &Policy{}
