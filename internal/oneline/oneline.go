// Package oneline writes an error's message on one line, for a log field or a problem report.
package oneline

import (
	"slices"
	"strings"
)

// Of is err's message on one line: the distinct messages of joined errors (gowarc joins a read
// error with the same error again on close) separated by "; ", any other newline a space.
func Of(err error) string {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return strings.ReplaceAll(err.Error(), "\n", " ")
	}
	var msgs []string
	for _, e := range j.Unwrap() {
		if m := Of(e); !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	return strings.Join(msgs, "; ")
}
