// Package invalid is the one error type for a value a person gave that cannot be used: a flag,
// a configuration option, a pattern. It carries the reason apart from the value, so that the
// command can print "invalid KEY VALUE: REASON" for a configuration file and the library's own
// sentence elsewhere, telling the two apart with errors.As and never by the error's text.
package invalid

import (
	"errors"
	"fmt"
)

// Value is the error for one unusable value: what it is (e.g. "partition"), as given, and what
// to give instead.
type Value struct {
	What   string
	Value  string
	Reason string
}

// Error is `WHAT "VALUE": REASON`.
func (e *Value) Error() string { return fmt.Sprintf("%s %q: %s", e.What, e.Value, e.Reason) }

// Reason returns the reason of the *Value in err's chain, and whether there is one.
func Reason(err error) (string, bool) {
	var v *Value
	if errors.As(err, &v) {
		return v.Reason, true
	}
	return "", false
}
