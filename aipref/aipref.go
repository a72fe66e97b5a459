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

// Category is one usage category of the vocabulary: its label and its name in words.
type Category struct {
	Label string // e.g. "train-ai"
	Name  string // e.g. "AI training"
}

// vocabulary lists the known categories in the vocabulary's order: the one list of them.
var vocabulary = []Category{
	{TrainAI, "AI training"},
	{AIUse, "AI use"},
	{Search, "Search"},
}

// Vocabulary returns the categories this package recognises (vocab-08 §4), in the vocabulary's order.
func Vocabulary() []Category { return slices.Clone(vocabulary) }

// Categories returns the labels this package recognises (vocab-08), sorted.
func Categories() []string {
	out := make([]string, len(vocabulary))
	for i, c := range vocabulary {
		out[i] = c.Label
	}
	slices.Sort(out)
	return out
}

// known reports whether label is a category of the vocabulary.
func known(label string) bool {
	return slices.ContainsFunc(vocabulary, func(c Category) bool { return c.Label == label })
}

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
