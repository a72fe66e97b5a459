package robots

import (
	"strconv"
	"strings"

	"github.com/archivectl/archivectl/aipref"
	"github.com/archivectl/archivectl/embargo"
)

// The codes of Warning, one per mistake the publisher self-check explains (docs/formats.md#check-json).
const (
	WarnInvalidEmbargo     = "invalid-embargo"       // an Archive-Embargo value other than w, m or q: ignored
	WarnEmbargoAllowAlone  = "embargo-allow-ignored" // Embargo-Allow in a group without a valid Archive-Embargo: ignored
	WarnEmbargoAllowShadow = "embargo-allow-shadowed"
	WarnAgentNearMiss      = "agent-near-miss"    // a group names almost the token, and so does not apply
	WarnAgentCut           = "agent-value-cut"    // a user-agent value holds more than a product token
	WarnAgentEmpty         = "agent-value-empty"  // a user-agent value with no product token: matches no crawler
	WarnInvalidToken       = "invalid-token"      // the token checked is not a product token: no group can name it
	WarnOutsideGroup       = "outside-group"      // a rule before the first user-agent line: ignored
	WarnUnknownKey         = "unknown-key"        // a key the parser does not know: ignored
	WarnInvalidUsage       = "invalid-usage"      // a Content-Usage preference that is not a valid dictionary
	WarnTruncated          = "truncated"          // the body is longer than MaxBytes: the rest is ignored
	WarnIncomplete         = "lint-incomplete"    // the file is too large for every pair of rules to be compared
	WarnNoGroup            = "no-group-for-token" // no group names the token: the "*" groups apply
)

// Warning is one thing in a robots.txt that does not do what its author probably meant.
type Warning struct {
	Line    int    `json:"line,omitempty"` // 0 when no one line is at fault
	Code    string `json:"code"`           // one of the Warn constants
	Text    string `json:"text,omitempty"` // the line as written, comment included
	Message string `json:"message"`
}

// Lint is a robots.txt parsed the way NewPolicy parses it, with what a linter needs besides:
// every record with its group, and the text of every line.
type Lint struct {
	Policy    *Policy // the policy the crawler would build from the same bytes
	Truncated bool    // the body was longer than MaxBytes
	records   []lintRecord
	body      string
	starts    []int32 // offset in body of each line, by line number - 1
}

// lintRecord is one record and the group it was filed under (-1: none).
type lintRecord struct {
	Record
	group int32
}

// linter hands each record to the engine's builder and keeps it.
type linter struct {
	b       builder
	records []lintRecord
}

// HandleRecord implements Handler.
func (l *linter) HandleRecord(r Record) {
	l.b.HandleRecord(r)
	l.records = append(l.records, lintRecord{Record: r, group: int32(l.b.cur)})
}

// NewLint parses body with the builder NewPolicy uses, cut at MaxBytes as NewPolicy cuts it
// (docs/rules.md#d11), so its Policy evaluates exactly as the crawler's.
func NewLint(body []byte) *Lint {
	cut := parsedPart(body)
	p := &Policy{}
	l := &linter{b: builder{p: p, cur: -1}}
	Parse(cut, l)
	lt := &Lint{Policy: p, Truncated: len(cut) < len(body), records: l.records, body: string(cut)}
	lt.indexLines()
	return lt
}

// parsedPart is the part of body NewPolicy parses: the first MaxBytes, less a line the limit cuts in half.
func parsedPart(body []byte) []byte {
	if len(body) <= MaxBytes {
		return body
	}
	cut := body[:MaxBytes]
	if c := body[MaxBytes]; c != '\n' && c != '\r' {
		if i := lastLineEnd(cut); i >= 0 {
			return cut[:i+1]
		}
		return nil
	}
	return cut
}

// indexLines records where each line starts, with Parse's line ends (CR, LF, CRLF) and BOM.
func (l *Lint) indexLines() {
	s, pos := l.body, 0
	for i := 0; i < 3 && pos < len(s) && s[pos] == "\xEF\xBB\xBF"[i]; i++ {
		pos++
	}
	l.starts = append(l.starts, int32(pos))
	for pos < len(s) {
		c := s[pos]
		pos++
		if c == '\r' && pos < len(s) && s[pos] == '\n' {
			pos++
		}
		if (c == '\n' || c == '\r') && pos < len(s) {
			l.starts = append(l.starts, int32(pos))
		}
	}
}

// maxLineText is how much of a line Line returns.
const maxLineText = 200

// Line is the text of line n (1-based) as written, without its line end, cut at 200 bytes; "" when there is no such line.
func (l *Lint) Line(n int) string {
	if n < 1 || n > len(l.starts) {
		return ""
	}
	start, end := int(l.starts[n-1]), len(l.body)
	if n < len(l.starts) {
		end = int(l.starts[n])
	}
	s := strings.TrimRight(l.body[start:end], "\r\n")
	if len(s) > maxLineText {
		s = s[:maxLineText] + "…"
	}
	return s
}

// Selected lists the groups that apply to agent, as Evaluate merges them (docs/rules.md#d12):
// every group naming it, else every "*" group. specific reports which of the two it is.
func (l *Lint) Selected(agent string) (groups []int, specific bool) {
	in, specific := l.Policy.chosen(agent)
	for i, ok := range in {
		if ok {
			groups = append(groups, i)
		}
	}
	return groups, specific
}

// GroupLine is the line of the first user-agent line of group g.
func (l *Lint) GroupLine(g int) int {
	for _, r := range l.records {
		if r.Key == KeyUserAgent && int(r.group) == g {
			return r.Line
		}
	}
	return 0
}

// GroupTokens lists the product tokens group g names, "*" included.
func (l *Lint) GroupTokens(g int) []string {
	gr := l.Policy.groups[g]
	out := append([]string(nil), gr.tokens...)
	if gr.global {
		out = append(out, "*")
	}
	return out
}

// lintBudget bounds the rule comparisons of one Warnings call: pattern octets compared.
const lintBudget = 20_000_000

// Warnings lists what in the file does not do what its author probably meant, in line order
// within each kind, for a crawler whose product token is agent ("" checks the file alone).
func (l *Lint) Warnings(agent string) []Warning {
	var ws []Warning
	add := func(line int, code, msg string) {
		ws = append(ws, Warning{Line: line, Code: code, Text: l.Line(line), Message: msg})
	}
	if l.Truncated {
		add(0, WarnTruncated, "the file is longer than "+strconv.Itoa(MaxBytes)+" bytes: everything after them is ignored")
	}
	if agent != "" && !ValidAgent(agent) {
		add(0, WarnInvalidToken, "the product token "+strconv.Quote(agent)+" has characters outside [A-Za-z_-] (RFC 9309 §2.2.1): no group can name it, so only the \"*\" groups apply")
	}
	p := l.Policy
	validEmbargo := make([]bool, len(p.groups))
	for _, e := range p.embargoes {
		validEmbargo[e.group] = true
	}
	for _, r := range l.records {
		switch {
		case r.Key == KeyUnknown:
			add(r.Line, WarnUnknownKey, "the key "+strconv.Quote(r.Name)+" is not one the crawler knows: the line is ignored"+keyHint(r.Name))
		case r.Key == KeyUserAgent:
			tok, global := agentValue(r.Value)
			switch {
			case global:
			case tok == "":
				add(r.Line, WarnAgentEmpty, "the user-agent value "+strconv.Quote(r.Value)+" does not start with a product token ([A-Za-z_-]): this line matches no crawler")
			case tok != r.Value:
				add(r.Line, WarnAgentCut, "only "+strconv.Quote(tok)+" is the product token; the rest of "+strconv.Quote(r.Value)+" is ignored")
			}
		case r.group < 0 && r.Key != KeySitemap:
			add(r.Line, WarnOutsideGroup, "this "+r.Key.String()+" line stands before the first user-agent line: it belongs to no group and is ignored")
		case r.Key == KeyArchiveEmbargo:
			if _, ok := embargo.ParsePeriod(r.Value); !ok {
				add(r.Line, WarnInvalidEmbargo, "Archive-Embargo "+strconv.Quote(r.Value)+" is not w, m or q: the value is ignored, as if the line were not there")
			}
		case r.Key == KeyContentUsage:
			pref := r.Value
			if strings.HasPrefix(pref, "/") {
				pref = ""
				if i := strings.IndexAny(r.Value, " \t"); i >= 0 {
					pref = trimWS(r.Value[i:])
				}
			}
			if _, err := aipref.Parse(pref); err != nil {
				add(r.Line, WarnInvalidUsage, "the preference "+strconv.Quote(pref)+" is not a valid RFC 9651 dictionary: every category stays unknown")
			}
		}
	}
	// Embargo-Allow lines: counted only when a merged group holding them has a valid Archive-Embargo (docs/rules.md#d12).
	budget := lintBudget
	for i := range p.access {
		r := &p.access[i]
		if r.kind != KeyEmbargoAllow {
			continue
		}
		sets := p.mergeSets(int(r.group))
		counted := false
		for _, set := range sets {
			for _, g := range set {
				counted = counted || validEmbargo[g]
			}
		}
		if !counted {
			add(int(r.line), WarnEmbargoAllowAlone, "Embargo-Allow counts only with a valid Archive-Embargo (w, m or q) in the same group: this line is ignored, so the Disallow lines decide")
			continue
		}
		if r.pat.star >= 0 {
			continue // the shadow test below holds for wildcard-free patterns only
		}
		for j := range p.access {
			d := &p.access[j]
			if d.kind != KeyDisallow || d.pat.length <= r.pat.length || !inSets(sets, int(d.group)) {
				continue
			}
			if budget -= int(d.pat.length) + len(r.pat.lit); budget < 0 {
				break
			}
			// An unanchored pattern matching a path matches every path that extends it, so a
			// longer Disallow matching the Embargo-Allow's literal beats it on every path it covers.
			if !d.pat.anchored && d.pat.match(r.pat.lit) {
				add(int(r.line), WarnEmbargoAllowShadow, "every path this Embargo-Allow matches is also matched by the longer Disallow on line "+strconv.Itoa(int(d.line))+" ("+d.raw+"), which wins (RFC 9309 §2.2.2: the longest match): this line never allows anything")
				break
			}
		}
	}
	if budget < 0 {
		add(0, WarnIncomplete, "the file has too many rules to compare every Embargo-Allow with every Disallow: some shadowed lines may not be reported")
	}
	if agent != "" {
		ws = append(ws, l.agentWarnings(agent)...)
	}
	return ws
}

// keyHint suggests the known key a misspelt one was probably meant to be.
func keyHint(name string) string {
	n := squash(name)
	for _, k := range keys {
		if squash(k.name) == n {
			return "; did you mean " + strconv.Quote(k.key.String()) + "?"
		}
	}
	return ""
}

// squash lowercases s and keeps only its ASCII letters, to compare names as a person reads them.
func squash(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'a' <= c && c <= 'z' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// agentWarnings are the groups that name almost agent, and say so when none names it.
func (l *Lint) agentWarnings(agent string) []Warning {
	var ws []Warning
	_, specific := l.Policy.chosen(agent)
	want := squash(agent)
	for _, r := range l.records {
		if r.Key != KeyUserAgent {
			continue
		}
		tok, global := agentValue(r.Value)
		if global || strings.EqualFold(tok, agent) {
			continue
		}
		if squash(r.Value) == want || (tok != "" && squash(tok) == want) {
			ws = append(ws, Warning{Line: r.Line, Code: WarnAgentNearMiss, Text: l.Line(r.Line),
				Message: "this group names " + strconv.Quote(r.Value) + ", whose product token is " + strconv.Quote(tok) + ": it does not match the token " + strconv.Quote(agent) + " (the comparison ignores case only, RFC 9309 §2.2.1), so the group does not apply"})
		}
	}
	if !specific {
		msg := "no group names " + strconv.Quote(agent) + ": the \"*\" groups apply"
		if len(l.Policy.groups) == 0 {
			msg = "the file has no group: everything is allowed"
		}
		ws = append(ws, Warning{Code: WarnNoGroup, Message: msg})
	}
	return ws
}

// mergeSets lists, for each crawler that group g can apply to, the groups merged with it:
// for each token g names, the groups naming it; and for g a "*" group, the "*" groups.
func (p *Policy) mergeSets(g int) [][]int {
	var sets [][]int
	for _, t := range p.groups[g].tokens {
		var set []int
		for i, o := range p.groups {
			for _, u := range o.tokens {
				if strings.EqualFold(t, u) {
					set = append(set, i)
					break
				}
			}
		}
		sets = append(sets, set)
	}
	if p.groups[g].global {
		var set []int
		for i, o := range p.groups {
			if o.global {
				set = append(set, i)
			}
		}
		sets = append(sets, set)
	}
	return sets
}

// inSets reports whether group g is in one of sets.
func inSets(sets [][]int, g int) bool {
	for _, set := range sets {
		for _, o := range set {
			if o == g {
				return true
			}
		}
	}
	return false
}

// URLWarnings explain decision d, made by l.Policy for agent and pathQuery: an Embargo-Allow
// that matches the URL but is ignored for want of a valid Archive-Embargo, or that a longer
// Disallow beats.
func (l *Lint) URLWarnings(agent, pathQuery string, d Decision) []Warning {
	if pathQuery == "" {
		pathQuery = "/"
	}
	path := normalize(pathQuery, false)
	if path == "/robots.txt" {
		return nil
	}
	p := l.Policy
	in, _ := p.chosen(agent)
	period := embargo.None
	for _, e := range p.embargoes {
		if in[e.group] && e.period > period {
			period = e.period
		}
	}
	var ws []Warning
	for i := range p.access {
		r := &p.access[i]
		if r.kind != KeyEmbargoAllow || !in[r.group] || !r.pat.match(path) {
			continue
		}
		switch {
		case period == embargo.None:
			ws = append(ws, Warning{Line: int(r.line), Code: WarnEmbargoAllowAlone, Text: l.Line(int(r.line)),
				Message: "this Embargo-Allow matches the URL but is ignored: the group has no valid Archive-Embargo"})
		case !d.Allowed && d.Rule.Kind == KeyDisallow.String():
			ws = append(ws, Warning{Line: int(r.line), Code: WarnEmbargoAllowShadow, Text: l.Line(int(r.line)),
				Message: "this Embargo-Allow matches the URL, but the longer Disallow on line " + strconv.Itoa(d.Rule.Line) + " (" + d.Rule.Pattern + ") wins (RFC 9309 §2.2.2: the longest match)"})
		}
		if len(ws) >= 10 {
			break
		}
	}
	return ws
}
