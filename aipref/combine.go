package aipref

// Combine merges several statements per category (vocab-08 §5.1, docs/rules.md#d16): any Disallow gives
// Disallow; otherwise any Allow gives Allow; otherwise the category stays unknown.
func Combine(ps ...Prefs) Prefs {
	out := Prefs{}
	for _, p := range ps {
		for label, v := range p {
			switch {
			case v == Disallow:
				out[label] = Disallow
			case v == Allow && out[label] != Disallow:
				out[label] = Allow
			}
		}
	}
	return out
}
