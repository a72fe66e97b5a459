// Package aipref reads AI usage preferences (draft-ietf-aipref-vocab-08) as carried by the
// Content-Usage HTTP header field and robots.txt rule (draft-ietf-aipref-attach-05), and
// combines several statements the way the vocabulary says: n beats y beats unknown.
package aipref

import (
	"slices"
	"strings"
)

// Value is the processed preference for one usage category.
type Value int8

// The three outcomes of vocab-08 §3: a category is allowed, disallowed, or unknown.
const (
	Unknown  Value = iota // no usable statement for the category
	Allow                 // the Token y
	Disallow              // the Token n
)

// String is the vocabulary's token for the value ("y", "n"), or "unknown".
func (v Value) String() string {
	switch v {
	case Allow:
		return "y"
	case Disallow:
		return "n"
	}
	return "unknown"
}

// The category labels of vocab-08 §4.
const (
	TrainAI = "train-ai" // AI Training
	AIUse   = "ai-use"   // AI Use
	Search  = "search"   // Search
)

// categories lists the known labels in sorted order.
var categories = []string{AIUse, Search, TrainAI}

// Categories returns the labels this package recognises (vocab-08), sorted.
func Categories() []string { return slices.Clone(categories) }

// known reports whether label is a category of the vocabulary.
func known(label string) bool { return slices.Contains(categories, label) }

// Prefs maps a known category label to Allow or Disallow; a missing label is Unknown.
type Prefs map[string]Value

// Get returns the value for a category label, Unknown when the statement says nothing usable.
func (p Prefs) Get(label string) Value { return p[label] }

// Expressions renders the allowed and disallowed categories as "label=y|n", sorted by label.
func (p Prefs) Expressions() []string {
	out := make([]string, 0, len(p))
	for label, v := range p {
		if v == Allow || v == Disallow {
			out = append(out, label+"="+v.String())
		}
	}
	slices.Sort(out)
	return out
}

// String joins the expressions as one dictionary, e.g. "search=y, train-ai=n".
func (p Prefs) String() string { return strings.Join(p.Expressions(), ", ") }
