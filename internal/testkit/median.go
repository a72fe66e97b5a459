package testkit

import "slices"

// Median is the middle value of xs (the mean of the middle two for an even count), 0 for none:
// the figure every benchmark here reports of its rounds.
func Median[T ~int64 | ~float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	switch {
	case len(s) == 0:
		return 0
	case len(s)%2 == 1:
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
