package lookup

import (
	"strings"

	"github.com/archivectl/archivectl/aipref"
)

// categories are the labels this archive knows (docs/rules.md#d17), in the vocabulary's order.
var categories = aipref.Vocabulary()

// usageLine is one category's preference in words.
type usageLine struct {
	Category, Preference string
	Known                bool // the category is in the vocabulary this archive knows
}

// usageInWords says what combined Content-Usage preferences ("train-ai=n", …) mean: every known
// category with allowed, not allowed or no preference, then any label the vocabulary does not define.
func usageInWords(usage []string) []usageLine {
	stated := map[string]string{}
	var order []string
	for _, u := range usage {
		k, v, _ := strings.Cut(strings.TrimSpace(u), "=")
		if _, dup := stated[k]; !dup {
			order = append(order, k)
		}
		stated[k] = v
	}
	var out []usageLine
	for _, c := range categories {
		out = append(out, usageLine{Category: c.Name, Preference: preferenceWords(stated[c.Label]), Known: true})
		delete(stated, c.Label)
	}
	for _, k := range order {
		if v, ok := stated[k]; ok {
			out = append(out, usageLine{Category: k, Preference: preferenceWords(v) + " (a label this archive does not know)"})
		}
	}
	return out
}

// preferenceWords names a preference value: y allowed, n not allowed, anything else unknown.
func preferenceWords(v string) string {
	switch v {
	case "y", "allow", "allowed":
		return "allowed"
	case "n", "disallow", "disallowed":
		return "not allowed"
	}
	return "no preference stated"
}
